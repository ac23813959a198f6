#!/bin/sh
# nvml-host.sh DIR [SCENARIO [server]]: a host root for live detection through the stand-in NVML
# (native/src/test/c/fake_nvml.c): DIR/sys shows the scenario's NVIDIA display functions bound to the nvidia
# driver, at the addresses the stand-in reports, so that sysfs and NVML describe the same cards, as on a real
# host. SCENARIO (FAKE_NVML_SCENARIO for the run): h100 (default; one H100 SXM5 at 0000:18:00.0) or 8xa100-mig
# (eight A100 SXM4 80GB, two of them in MIG mode). Replaces DIR.
set -eu
host=${1:?usage: nvml-host.sh DIR [h100|8xa100-mig [server]]}
scenario=${2:-h100}
server=${3:-}
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
    # The driver's folder links the function too, as the kernel's does (the agent's steady pass reads it).
    ln -s "../../devices/0000:$1:00.0" "$host/sys/bus/pci/drivers/nvidia/0000:$1:00.0"
}
rm -rf "$host"
mkdir -p "$host/sys/bus/pci/drivers/nvidia"
case $scenario in
    h100) function_at 18 2330 16c1 ;;
    8xa100-mig) for bus in 07 0f 47 4e 87 90 b7 bd; do function_at "$bus" 20b2 147f; done ;;
    *) echo "nvml-host.sh: no host root for scenario $scenario (h100, 8xa100-mig)" >&2; exit 2 ;;
esac
# With SERVER (the word "server"), DIR also holds what else a real GPU server's sysfs shows a steady pass: the rest of
# its bus (240 functions: bridges on pcieport, NICs on mlx5_core, NVMe drives, the BMC's ASPEED VGA on ast), each driver's
# folder linking the functions bound to it beside its own files, the nvidia module's version, and /sys/class/drm as nvidia_drm and ast make
# it (card0 the BMC's, card1-N the GPUs', their render nodes and a connector). The default is the bare bus the
# stand-in's figures in docs/performance.md were measured on.
if [ "$server" = server ]; then
    # other BUS DEVFN VENDOR DEVICE CLASS DRIVER: one function that is no GPU, bound to DRIVER ("" for none)
    other() {
        fn=$host/sys/bus/pci/devices/0000:$1:$2
        mkdir -p "$fn"
        echo "$5" >"$fn/class"
        echo "0x$3" >"$fn/vendor"
        echo "0x$4" >"$fn/device"
        head -c 64 /dev/zero >"$fn/config"
        if [ -n "$6" ]; then
            mkdir -p "$host/sys/bus/pci/drivers/$6"
            ln -s "../../../bus/pci/drivers/$6" "$fn/driver"
            ln -s "../../../../devices/pci0000:00/0000:$1:$2" "$host/sys/bus/pci/drivers/$6/0000:$1:$2"
        fi
    }
    for bus in 00 20 40 60 80 a0 c0 e0; do
        for dev in 00 01 02 03 04 05 07 08 14 18; do
            for f in 0 1 2; do other "$bus" "$dev.$f" 1022 1480 0x060000 ""; done
        done
        for port in 1 2 3 4; do other "$bus" "0$port.1" 1022 1483 0x060400 pcieport; done
    done
    for bus in 01 02 03 04 05 06 08 09 0a 0b 0c 0d 0e 10 11 12 41 42 43 44 45 46 48 49 4a 4b 4c 4d 81 82 83 84 85 86 88 89 8a 8b b1 b2 b3 b4; do
        other "$bus" 00.0 1000 c010 0x060400 pcieport
    done
    for bus in 13 14 53 55 8e 95 bb c1 c2 cb; do other "$bus" 00.0 15b3 101b 0x020700 mlx5_core; done
    for bus in c6 c7 c8 c9; do other "$bus" 00.0 144d a824 0x010802 nvme; done
    other e1 00.0 1a03 2000 0x030000 ast
    mkdir -p "$host/sys/module/nvidia" "$host/sys/class/drm"
    echo 550.54.15 >"$host/sys/module/nvidia/version"
    ln -s ../../devices/pci0000:e0/0000:e0:03.1/0000:e1:00.0/drm/card0 "$host/sys/class/drm/card0"
    ln -s ../../devices/pci0000:e0/0000:e0:03.1/0000:e1:00.0/drm/card0/card0-VGA-1 "$host/sys/class/drm/card0-VGA-1"
    n=1
    for fn in "$host"/sys/bus/pci/devices/*; do
        [ "$(readlink "$fn/driver" 2>/dev/null)" = ../../../bus/pci/drivers/nvidia ] || continue
        a=$(basename "$fn")
        b=$(echo "$a" | cut -d: -f2)
        ln -s "../../devices/pci0000:$b/0000:$b:01.1/$a/drm/card$n" "$host/sys/class/drm/card$n"
        ln -s "../../devices/pci0000:$b/0000:$b:01.1/$a/drm/renderD$((127 + n))" "$host/sys/class/drm/renderD$((127 + n))"
        n=$((n + 1))
    done
    echo "drm 1.1.0 20060810" >"$host/sys/class/drm/version"
    for d in "$host"/sys/bus/pci/drivers/*; do
        touch "$d/bind" "$d/unbind" "$d/new_id" "$d/remove_id" "$d/uevent"
        ln -s "../../../../module/$(basename "$d")" "$d/module"
    done
fi
