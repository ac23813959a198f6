#!/bin/sh
# nvml-host.sh DIR: a host root for live detection through the stand-in NVML (native/src/test/c/fake_nvml.c,
# scenario h100): DIR/sys shows one NVIDIA display function at the H100's address, 0000:18:00.0, bound to
# the nvidia driver, so that sysfs and NVML describe the same card, as on a real host. Replaces DIR.
set -eu
host=${1:?usage: nvml-host.sh DIR}
fn=$host/sys/bus/pci/devices/0000:18:00.0
rm -rf "$host"
mkdir -p "$fn" "$host/sys/bus/pci/drivers/nvidia"
echo 0x030200 >"$fn/class"
echo 0x10de >"$fn/vendor"
echo 0x2330 >"$fn/device"
echo 0x10de >"$fn/subsystem_vendor"
echo 0x16c1 >"$fn/subsystem_device"
echo 0xa1 >"$fn/revision"
ln -s ../../../bus/pci/drivers/nvidia "$fn/driver"
