#!/usr/bin/env bash
# Refreshes the id tables shipped in probes/src/main/resources/io/gpudetect/tables/ from their sources:
#   pci.ids      Debian package "pci.ids" (PCI ID Project, GPL-2.0-or-later or BSD-3-Clause), filtered
#                to vendor names plus the device blocks of vendors that make display controllers.
#   amdgpu.ids   Debian package "libdrm-common" (libdrm, MIT), unchanged.
#   akash-gpus.json  akash-network/provider-configs devices/pcie/gpus.json (Apache-2.0), unchanged;
#                pass its path as the first argument (the shared copy is ../shared/data/akash-gpus.json).
# Run it from the repository root; it needs apt-get (Debian) and python3.
set -euo pipefail
out=probes/src/main/resources/io/gpudetect/tables
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download pci.ids libdrm-common >/dev/null)
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
python3 tables/filter-pci-ids.py "$work/x/usr/share/misc/pci.ids" > "$out/pci.ids"
cp "$work/x/usr/share/libdrm/amdgpu.ids" "$out/amdgpu.ids"
if [ "${1:-}" != "" ]; then cp "$1" "$out/akash-gpus.json"; fi
echo "tables refreshed in $out"
