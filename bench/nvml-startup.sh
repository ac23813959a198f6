#!/bin/sh
# Start-up of live detection through NVML against hello-world: `gpu-detect --output json` on a host root
# whose sysfs shows one H100, with the tests' stand-in libnvidia-ml.so.1 (native/src/test/c/fake_nvml.c,
# scenario h100) under --driver-root, so that JNA loads a real library and NVML answers every call.
# Hello-world and each launcher run once per round, in a new random order each round; the table gives
# each one's median wall time and CPU time (user + system) and its ratio to hello-world's median.
# docs/performance.md ("Live NVIDIA start-up") has the figures and what each change bought.
#
# Usage: bench/nvml-startup.sh [LAUNCHER...]     (default: ./gpu-detect of this tree, built)
#   BENCH_ROUNDS   rounds (default 31)
# Several launchers (another tree's ./gpu-detect, built) compare builds in the same run: for each launcher
# after the first, the last columns give the median of its per-round differences from the first.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=bench/target
rounds=${BENCH_ROUNDS:-31}
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
javac=${JAVA_HOME:+$JAVA_HOME/bin/}javac
if [ "$#" -eq 0 ]; then
    set -- "$root/gpu-detect"
fi
mkdir -p "$out"
if [ ! -f "$out/fake-nvml/current/usr/lib64/libnvidia-ml.so.1" ]; then
    sh native/src/test/c/build-fake-nvml.sh "$out/fake-nvml" >&2
fi
"$javac" -d "$out" bench/Hello.java

# The host: one NVIDIA display function on the bus, bound to the nvidia driver, as NVML's h100 scenario.
host=$root/$out/nvml-host
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
driver=$root/$out/fake-nvml/current
export FAKE_NVML_SCENARIO=h100

# The check that NVML answered: a run where NVML is unavailable would time something else.
for launcher in "$@"; do
    if ! "$launcher" --host-root "$host" --driver-root "$driver" --output json | grep -q '"uuid" : "nvml"'; then
        echo "nvml-startup.sh: $launcher did not detect the GPU through NVML" >&2
        exit 1
    fi
done

# run NAME COMMAND...: appends "NAME wall_ms cpu_ms round" to the results.
run() {
    name=$1
    shift
    t=$(date +%s%N)
    /usr/bin/time -f '%U %S' -o "$out/nvml-startup.time" "$@" >/dev/null 2>&1
    wall=$(( ($(date +%s%N) - t) / 1000000 ))
    awk -v n="$name" -v w="$wall" -v r="$i" '{printf "%s %d %.0f %d\n", n, w, ($1 + $2) * 1000, r}' "$out/nvml-startup.time" \
        >>"$out/nvml-startup.ms"
}
: >"$out/nvml-startup.ms"
echo "nvml-startup: $rounds rounds of hello-world and $# launcher(s) ..." >&2
i=0
while [ "$i" -lt "$rounds" ]; do
    for v in $(seq 0 "$#" | shuf); do
        if [ "$v" -eq 0 ]; then
            run hello "$java" -cp "$out" Hello
        else
            eval "launcher=\${$v}"
            run "$v" "$launcher" --host-root "$host" --driver-root "$driver" --output json
        fi
    done
    i=$((i + 1))
done

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
hello_wall=$(awk '$1=="hello" {print $2}' "$out/nvml-startup.ms" | median)
hello_cpu=$(awk '$1=="hello" {print $3}' "$out/nvml-startup.ms" | median)
echo
echo "live NVML start-up, $(date -u +%Y-%m-%dT%H:%MZ), $rounds rounds, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-60s %8s %8s %8s %8s %10s %10s\n' "command" "wall ms" "ratio" "CPU ms" "ratio" "wall -1st" "CPU -1st"
printf '%-60s %8s %8s %8s %8s\n' "java Hello" "$hello_wall" "1.00" "$hello_cpu" "1.00"
v=1
for launcher in "$@"; do
    wall=$(awk -v n="$v" '$1==n {print $2}' "$out/nvml-startup.ms" | median)
    cpu=$(awk -v n="$v" '$1==n {print $3}' "$out/nvml-startup.ms" | median)
    dwall=-
    dcpu=-
    if [ "$v" -gt 1 ]; then
        # per-round differences from the first launcher: column 2 (wall) or 3 (CPU)
        diff() { awk -v n="$v" -v c="$1" '$1==1 {f[$4]=$c} $1==n {d[$4]=$c} END {for (r in d) if (r in f) print d[r]-f[r]}' \
            "$out/nvml-startup.ms" | median; }
        dwall=$(diff 2)
        dcpu=$(diff 3)
    fi
    printf '%-60s %8s %8s %8s %8s %10s %10s\n' "$launcher" "$wall" \
        "$(awk -v a="$wall" -v b="$hello_wall" 'BEGIN {printf "%.2f", a / b}')" "$cpu" \
        "$(awk -v a="$cpu" -v b="$hello_cpu" 'BEGIN {printf "%.2f", a / b}')" "$dwall" "$dcpu"
    v=$((v + 1))
done
