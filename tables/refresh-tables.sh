#!/usr/bin/env bash
# Refreshes the one id table the repository holds, pci.ids: Debian package "pci.ids" (PCI ID Project,
# GPL-2.0-or-later or BSD-3-Clause), filtered to vendor names plus the device blocks of vendors that make display
# controllers; a jar resource in probes/src/main/resources/io/gpudetect/tables/. From the file given as the
# argument (the shipped copy is trixie's 0.0~2025.06.09-1), else from the apt sources' release, which on bookworm
# is the 2023.04 list, older than Blackwell and MI300.
# The other tables are not kept here:
#   amdgpu.ids       Debian's libdrm-common, fetched by the build (tables/debian-amdgpu-ids.sh, probes/pom.xml)
#                    into probes/target; it refreshes itself at most daily. rm -rf ~/.cache/gpu-detect/amdgpu-ids
#                    forces a fetch.
#   Akash's table    read at run time where Akash's operator reads it, cached in ~/.cache/gpu-detect
#                    (AkashTableReader); the tests read ../shared/data/akash-gpus.json.
# Run it from the repository root; it needs apt-get (Debian) and python3.
set -euo pipefail
out=probes/src/main/resources/io/gpudetect/tables
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${1:-}" = "" ]; then
    (cd "$work" && apt-get download pci.ids >/dev/null)
    dpkg-deb -x "$work"/pci.ids_*.deb "$work/x"
fi
python3 tables/filter-pci-ids.py "${1:-$work/x/usr/share/misc/pci.ids}" > "$out/pci.ids"
echo "tables refreshed: $out/pci.ids"
