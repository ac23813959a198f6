#!/usr/bin/env bash
# Refreshes the id tables gpu-detect ships from their sources:
#   pci.ids      Debian package "pci.ids" (PCI ID Project, GPL-2.0-or-later or BSD-3-Clause), filtered
#                to vendor names plus the device blocks of vendors that make display controllers; a jar
#                resource in probes/src/main/resources/io/gpudetect/tables/. From the file given as the
#                third argument (the shipped copy is trixie's 0.0~2025.06.09-1), else from the apt sources'
#                release, which on bookworm is the 2023.04 list, older than Blackwell and MI300.
#   amdgpu.ids   libdrm's data/amdgpu.ids (MIT), unchanged, kept as tables/amdgpu.ids: from the file given
#                as the second argument (a current libdrm checkout's data/amdgpu.ids; the shipped copy is
#                X11Libre/drm 7d43d9b6, 2025-08-11), else from Debian's "libdrm-common", which in bookworm
#                (2.4.114, 2022) predates Instinct MI300 and the Radeon 700M/800M iGPUs.
#   akash-gpus.json  akash-network/provider-configs devices/pcie/gpus.json (Apache-2.0), unchanged, kept as
#                tables/akash-gpus.json; pass its path as the first argument (the shared copy is
#                ../shared/data/akash-gpus.json).
# The two small tables are compiled into ShippedTableText.java (tables/table-text.py says why);
# ShippedTableTextTest fails when that file and tables/ disagree.
# Run it from the repository root; it needs apt-get (Debian) and python3.
set -euo pipefail
out=probes/src/main/resources/io/gpudetect/tables
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download pci.ids libdrm-common >/dev/null)
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
python3 tables/filter-pci-ids.py "${3:-$work/x/usr/share/misc/pci.ids}" > "$out/pci.ids"
if [ "${2:-}" != "" ]; then cp "$2" tables/amdgpu.ids; else cp "$work/x/usr/share/libdrm/amdgpu.ids" tables/amdgpu.ids; fi
if [ "${1:-}" != "" ]; then cp "$1" tables/akash-gpus.json; fi
python3 tables/table-text.py tables/amdgpu.ids tables/akash-gpus.json \
    > probes/src/main/java/io/gpudetect/tables/ShippedTableText.java
echo "tables refreshed: $out/pci.ids, tables/amdgpu.ids, tables/akash-gpus.json, ShippedTableText.java"
