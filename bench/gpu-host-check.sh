#!/bin/bash
# gpu-host-check.sh ARCHIVE HELLO_CLASS_DIR OUT [MOCK_CLASS_PATH_DIR]: what the host archive costs on a real
# NVIDIA host, in one run (the figures docs/performance.md reports for the H100): NVML's own init and shutdown
# (bench/nvml-session.c, needs gcc there); start-up of live detection, of a replay of the H100 bundle and of its
# nvidia-smi.xml alone, and of `nvidia-smi -L`, against hello-world on the archive's java (interleaved rounds,
# medians); and a live agent's CPU per steady pass and RSS with NVML held between passes and released after each
# (--release-nvml), one after the other (bench/agent-live.sh). Without a cluster the agent runs --dry-run;
# MOCK_CLASS_PATH_DIR (the agent's test classes in classes/ and the test jars the archive lacks, as *.jar) starts
# the tests' MockApiServer on the archive's java, so that the agent reads from its informers as in production.
# Writes OUT/*.txt.
set -u
archive=${1:?usage: gpu-host-check.sh ARCHIVE HELLO_CLASS_DIR OUT}
hello=${2:?usage: gpu-host-check.sh ARCHIVE HELLO_CLASS_DIR OUT}
out=${3:?usage: gpu-host-check.sh ARCHIVE HELLO_CLASS_DIR OUT}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
home=$(mktemp -d)
tar -xf "$archive" -C "$home" --strip-components=1
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
bundle=$here/../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm
# The same card's nvidia-smi.xml alone: the replay a user pastes from a host without gpu-detect.
mkdir -p "$home/smi-only" && cp "$bundle/nvidia-smi.xml" "$home/smi-only/"
: >"$out/hello.us"; : >"$out/live.us"; : >"$out/replay.us"; : >"$out/smi-replay.us"; : >"$out/nvidia-smi-L.us"
for i in $(seq 21); do
    t=$(now_us); "$java" -Xshare:auto -cp "$hello" Hello >/dev/null; echo $(( $(now_us) - t )) >>"$out/hello.us"
    t=$(now_us); "$gd" -o json >/dev/null 2>&1; echo $(( $(now_us) - t )) >>"$out/live.us"
    t=$(now_us); "$gd" -o json --replay "$bundle" >/dev/null 2>&1; echo $(( $(now_us) - t )) >>"$out/replay.us"
    t=$(now_us); "$gd" -o json --replay "$home/smi-only" >/dev/null 2>&1; echo $(( $(now_us) - t )) >>"$out/smi-replay.us"
    if command -v nvidia-smi >/dev/null; then
        t=$(now_us); nvidia-smi -L >/dev/null 2>&1; echo $(( $(now_us) - t )) >>"$out/nvidia-smi-L.us"
    fi
done
h=$(median <"$out/hello.us")
{
    printf 'hello-world %.1f ms\n' "$(awk -v h="$h" 'BEGIN {print h / 1000}')"
    for f in live:"live -o json" replay:"replay of the H100 bundle" smi-replay:"replay of its nvidia-smi.xml alone" \
            nvidia-smi-L:"nvidia-smi -L"; do
        file=$out/${f%%:*}.us
        [ -s "$file" ] || continue
        m=$(median <"$file")
        awk -v h="$h" -v m="$m" -v what="${f#*:}" 'BEGIN {printf "%s %.1f ms (%.2fx)\n", what, m / 1000, m / h}'
    done
} >"$out/startup.txt"

mock=${4:-}
if [ -n "$mock" ]; then
    "$java" -cp "$mock/classes:$mock/*:$home/lib/*" io.gpudetect.testing.MockApiServer "$home/mock.kubeconfig" node-1 \
        >"$home/mock.log" 2>&1 &
    mock_pid=$!
    n=0; while [ ! -s "$home/mock.kubeconfig" ] && [ "$n" -lt 100 ]; do sleep 0.2; n=$((n + 1)); done
    export AGENT_KUBECONFIG=$home/mock.kubeconfig AGENT_NODE=node-1
fi
bash "$here/agent-live.sh" "$gd" "$home/agent-held" 30 >"$out/agent-held.txt" 2>&1
bash "$here/agent-live.sh" "$gd" "$home/agent-released" 30 --release-nvml >"$out/agent-released.txt" 2>&1
tail -3 "$home/agent-held/agent.log" >>"$out/agent-held.txt"
tail -3 "$home/agent-released/agent.log" >>"$out/agent-released.txt"
if [ -n "$mock" ]; then
    kill "$mock_pid" 2>/dev/null
fi
