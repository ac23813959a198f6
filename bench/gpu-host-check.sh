#!/bin/bash
# gpu-host-check.sh ARCHIVE HELLO_CLASS_DIR OUT: what the host archive costs on a real NVIDIA host, in one run
# (the figures docs/performance.md reports for the H100): NVML's own init and shutdown (bench/nvml-session.c,
# needs gcc there), start-up of live detection and of a replay against hello-world on the archive's java
# (interleaved rounds, medians), and a live agent's CPU per steady pass and RSS with NVML held between passes
# and released after each (--release-nvml), one after the other (bench/agent-live.sh). Writes OUT/*.txt.
set -u
archive=${1:?usage: gpu-host-check.sh ARCHIVE HELLO_CLASS_DIR OUT}
hello=${2:?usage: gpu-host-check.sh ARCHIVE HELLO_CLASS_DIR OUT}
out=${3:?usage: gpu-host-check.sh ARCHIVE HELLO_CLASS_DIR OUT}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
home=$(mktemp -d)
tar -xzf "$archive" -C "$home" --strip-components=1
gd=$home/bin/gpu-detect
java=$home/runtime/bin/java
# Akash's table needs the network, which such a host may not have: models by our own rules.
export GPU_DETECT_AKASH_TABLE=none
{ nvidia-smi -L; cat /sys/module/nvidia/version; nproc; uname -r; } >"$out/host.txt" 2>&1
gcc -O2 -o "$home/nvml-session" "$here/nvml-session.c" -ldl && "$home/nvml-session" >"$out/nvml-session.txt" 2>&1
"$gd" --version >"$out/version.txt" 2>&1
"$gd" -o json >"$out/live.json" 2>"$out/live.err"

now_us() { date +%s%6N; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
: >"$out/hello.us"; : >"$out/live.us"; : >"$out/replay.us"
for i in $(seq 21); do
    t=$(now_us); "$java" -Xshare:auto -cp "$hello" Hello >/dev/null; echo $(( $(now_us) - t )) >>"$out/hello.us"
    t=$(now_us); "$gd" -o json >/dev/null 2>&1; echo $(( $(now_us) - t )) >>"$out/live.us"
    t=$(now_us); "$gd" -o json --replay "$here/../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm" >/dev/null 2>&1
    echo $(( $(now_us) - t )) >>"$out/replay.us"
done
h=$(median <"$out/hello.us"); l=$(median <"$out/live.us"); r=$(median <"$out/replay.us")
awk -v h="$h" -v l="$l" -v r="$r" 'BEGIN {
    printf "hello-world %.1f ms\nlive -o json %.1f ms (%.2fx)\nreplay of the H100 bundle %.1f ms (%.2fx)\n",
        h / 1000, l / 1000, l / h, r / 1000, r / h }' >"$out/startup.txt"

bash "$here/agent-live.sh" "$gd" "$home/agent-held" 30 >"$out/agent-held.txt" 2>&1
bash "$here/agent-live.sh" "$gd" "$home/agent-released" 30 --release-nvml >"$out/agent-released.txt" 2>&1
tail -3 "$home/agent-held/agent.log" >>"$out/agent-held.txt"
tail -3 "$home/agent-released/agent.log" >>"$out/agent-released.txt"
