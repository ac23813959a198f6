#!/bin/sh
# nvml-host.sh DIR [SCENARIO]: a host root for live detection through the stand-in NVML
# (native/src/test/c/fake_nvml.c): DIR/sys shows the scenario's NVIDIA display functions bound to the nvidia
# driver, at the addresses the stand-in reports, so that sysfs and NVML describe the same cards, as on a real
# host. SCENARIO (FAKE_NVML_SCENARIO for the run): h100 (default; one H100 SXM5 at 0000:18:00.0) or 8xa100-mig
# (eight A100 SXM4 80GB, two of them in MIG mode). Replaces DIR.
set -eu
host=${1:?usage: nvml-host.sh DIR [h100|8xa100-mig]}
scenario=${2:-h100}
# function BUS DEVICE SUBSYSTEM_DEVICE: one NVIDIA 3D controller at 0000:BUS:00.0
function_at() {
    fn=$host/sys/bus/pci/devices/0000:$1:00.0
    mkdir -p "$fn"
    echo 0x030200 >"$fn/class"
    echo 0x10de >"$fn/vendor"
    echo "0x$2" >"$fn/device"
    echo 0x10de >"$fn/subsystem_vendor"
    echo "0x$3" >"$fn/subsystem_device"
    echo 0xa1 >"$fn/revision"
    ln -s ../../../bus/pci/drivers/nvidia "$fn/driver"
}
rm -rf "$host"
mkdir -p "$host/sys/bus/pci/drivers/nvidia"
case $scenario in
    h100) function_at 18 2330 16c1 ;;
    8xa100-mig) for bus in 07 0f 47 4e 87 90 b7 bd; do function_at "$bus" 20b2 147f; done ;;
    *) echo "nvml-host.sh: no host root for scenario $scenario (h100, 8xa100-mig)" >&2; exit 2 ;;
esac
