#!/bin/bash
# agent-live.sh GPU_DETECT OUT_DIR [SECONDS] [AGENT_ARGS...]: what a live agent costs in its steady state, as the
# launcher GPU_DETECT runs it (./gpu-detect here, bin/gpu-detect of the host archive on a GPU host) with the
# agent's own JVM flags: CPU per pass (user + system of the whole process, all threads) and resident memory.
# The agent passes every second in --dry-run against a closed API port (no cluster needed, the same on every
# machine; each pass then also fails to read its Node), or, where AGENT_KUBECONFIG names a cluster (the test
# classes' MockApiServer, as bench/run.sh starts it), against that cluster as in production, reading from its
# informers; SECONDS (default 30) are measured after 10 passes. AGENT_ARGS are added, e.g. --release-nvml,
# --host-root DIR --driver-root DIR. Prints RESULT lines: cpu_ms_per_pass, rss_mib, rss_anon_mib, passes; with
# AGENT_HEAP=1 also heap_live_kib (the heap's live objects after a full collection, from jcmd's class histogram,
# taken after the other figures) and boundpod_kib (the cached pods' BoundPod objects alone, without what they refer to).
set -eu
gd=${1:?usage: agent-live.sh GPU_DETECT OUT_DIR [SECONDS] [AGENT_ARGS...]}
out=${2:?usage: agent-live.sh GPU_DETECT OUT_DIR [SECONDS] [AGENT_ARGS...]}
seconds=${3:-30}
shift 3 || shift $#
mkdir -p "$out"
dry_run=--dry-run
if [ -n "${AGENT_KUBECONFIG:-}" ]; then
    cp "$AGENT_KUBECONFIG" "$out/kubeconfig"
    dry_run=
else
    printf '%s\n' 'apiVersion: v1' 'kind: Config' \
        'clusters: [{name: none, cluster: {server: "http://127.0.0.1:1"}}]' \
        'users: [{name: none, user: {token: none}}]' \
        'contexts: [{name: none, context: {cluster: none, user: none}}]' 'current-context: none' >"$out/kubeconfig"
fi
passes() {
    # /metrics without curl: the JDK is there, a shell's /dev/tcp may not be.
    { exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3; } 2>/dev/null \
        | awk '/^gpu_detect_passes_total/ {s += $2} END {print s + 0}'
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }
# --port 0: the kernel picks a free port, which the agent's start line names (a port drawn at random collided when
# two benches started in the same second, srand() seeding from the time).
KUBECONFIG="$out/kubeconfig" "$gd" agent --node ${AGENT_NODE:-bench} $dry_run --interval ${AGENT_INTERVAL:-1s} --startup-jitter 0 --port 0 \
    "$@" >"$out/agent.out" 2>"$out/agent.log" &
agent=$!
trap 'kill $agent 2>/dev/null || true' EXIT INT TERM
port=
n=0
while [ -z "$port" ] && [ "$n" -lt 120 ] && kill -0 "$agent" 2>/dev/null; do
    # The log may not be there yet: the background job opens it.
    port=$(sed -n 's/.*msg="agent started".* port=\([0-9][0-9]*\).*/\1/p' "$out/agent.log" 2>/dev/null) || port=
    [ -n "$port" ] || sleep 0.5
    n=$((n + 1))
done
if [ -z "$port" ]; then
    echo "agent-live.sh: the agent did not start (its log: $out/agent.log)" >&2
    exit 1
fi
n=0
while [ "$(passes)" -lt 10 ] && [ "$n" -lt 120 ] && kill -0 "$agent" 2>/dev/null; do sleep 0.5; n=$((n + 1)); done
# The launcher may exec java or run it as a child: measure the JVM.
jvm=$(pgrep -P "$agent" java 2>/dev/null || echo "$agent")
p1=$(passes); c1=$(ticks "$jvm")
sleep "$seconds"
p2=$(passes); c2=$(ticks "$jvm")
hz=$(getconf CLK_TCK)
echo "RESULT passes $((p2 - p1))"
awk -v c=$((c2 - c1)) -v p=$((p2 - p1)) -v hz="$hz" 'BEGIN {printf "RESULT cpu_ms_per_pass %.2f\n", (p > 0) ? (c * 1000 / hz / p) : -1}'
echo "RESULT rss_mib $(( $(kib "$jvm" VmRSS) / 1024 ))"
echo "RESULT rss_anon_mib $(( $(kib "$jvm" RssAnon) / 1024 ))"
if [ "${AGENT_HEAP:-0}" = 1 ]; then
    jcmd "$jvm" GC.class_histogram >"$out/histogram.txt" 2>&1 || true
    awk '/^Total/ {printf "RESULT heap_live_kib %d\n", $3 / 1024}
         $4 == "io.gpudetect.k8s.BoundPod" {printf "RESULT boundpod_kib %.1f\n", $3 / 1024}' "$out/histogram.txt"
fi
