#!/bin/bash
# agent-minute.sh [SECONDS]: where the agent's CPU goes at the chart's rate, by thread and by time. A mock API server
# (the test classes' MockApiServer, CRUD; it prints the requests it got every 10 s) holding the node, PODS (default
# 110) of NodePods' pods on it and, with AGENT_DRA=1, the node's ResourceSlice of 8 GPUs (as bench/agent-jvm.sh);
# then the agent as in production (./gpu-detect agent, its own flags and archive, GPU_DETECT_JAVA_OPTS added last) a
# pass every AGENT_INTERVAL (default 60s) for SECONDS (default 900). Every SAMPLE seconds (default 10) it records
# each thread's CPU (/proc/PID/task/*/schedstat, nanoseconds; the name from comm) and the process's own total
# (/proc/PID/stat, which keeps the ticks of threads that ended). AGENT_ARGS as in bench/agent-live.sh (default:
# replay the H100 bundle). Prints, from FROM seconds (default 150: after the first passes) to the end, each thread
# name's CPU per minute, then every sample window in which a thread used over BURST ms (default 20), next to the
# agent's log lines and the mock server's requests of that window. Needs the build bench/run.sh makes (mvn package
# with the test class path file); run it by hand, it is no test. Results in bench/target/agent-minute/RUN_NAME (default
# run). agent-minute.sh RUN_DIR prints the report again from a run's files.
set -eu
cd "$(dirname "$0")/.."
out=bench/target/agent-minute
sample=${SAMPLE:-10}
from=${FROM:-150}
burst=${BURST:-20}
hz=$(getconf CLK_TCK)
if [ -d "${1:-}" ]; then
    # agent-minute.sh RUN_DIR: the report again, on a run's samples (e.g. with another FROM or BURST).
    run=$1
    start=$(cat "$run/start")
else
seconds=${1:-900}
run=$out/${RUN_NAME:-run}
rm -rf "$run" && mkdir -p "$run"
cp="agent/cli/target/test-classes:agent/cli/target/classes:test-fixtures/target/test-classes:$(cat agent/cli/target/test.classpath)"
replay=${AGENT_REPLAY:-test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm}

# Each line of the mock server's output with the second it came (its windows are its own 10 s, not ours).
# (A process substitution, not a pipe, so that $! is the server's java and killing it ends the server.)
java -cp "$cp" io.gpudetect.testing.MockApiServer "$run/kubeconfig" bench "${PODS:-110}" ${AGENT_DRA:+dra} \
    > >(while IFS= read -r l; do printf '%s %s\n' "$(date +%s)" "$l"; done >"$run/mock.log") 2>&1 &
mock=$!
n=0; while [ ! -s "$run/kubeconfig" ] && [ "$n" -lt 300 ]; do sleep 0.2; n=$((n + 1)); done
port=$((20000 + RANDOM % 20000))
# shellcheck disable=SC2086 # AGENT_ARGS are words
KUBECONFIG="$run/kubeconfig" ./gpu-detect agent --node bench --interval "${AGENT_INTERVAL:-60s}" \
    --startup-jitter 0 --port "$port" ${AGENT_ARGS:---replay $replay} >"$run/agent.out" 2>"$run/agent.log" &
agent=$!
start=$(date +%s)
echo "$start" >"$run/start"
# samples: "SECONDS_SINCE_START TID NAME NS" per thread, and "SECONDS_SINCE_START 0 process TICKS_AS_NS".
# Shell builtins only in the loop (no program a thread), so that a SAMPLE of a second costs little.
while kill -0 "$agent" 2>/dev/null; do
    now=${EPOCHREALTIME/./}
    t=$(((now / 1000 - start * 1000) / 1000)).$(((now / 1000 - start * 1000) % 1000 / 100))
    [ "${t%.*}" -lt "$seconds" ] || break
    for d in /proc/"$agent"/task/*; do
        read -r name <"$d/comm" 2>/dev/null || continue
        read -r ns _ <"$d/schedstat" 2>/dev/null || continue
        echo "$t ${d##*/} ${name// /_} $ns"
    done >>"$run/samples"
    read -r stat <"/proc/$agent/stat" || break
    set -- ${stat##*) }
    echo "$t 0 process $(((${12} + ${13}) * 1000000000 / hz))" >>"$run/samples"
    sleep "$sample"
done
kill "$agent" 2>/dev/null || true
wait "$agent" 2>/dev/null || true
kill "$mock" 2>/dev/null || true
wait "$mock" 2>/dev/null || true
fi

# Per thread name: CPU from the first sample at or after FROM to the last, ms a minute (threads started later count
# from zero; a thread that ended keeps its last sample; "process" is the whole process, ended threads included).
awk -v from="$from" '
    $1 >= from { if (firstT == "") firstT = $1
                 if (!(($2 SUBSEP $3) in first)) first[$2, $3] = ($1 == firstT ? $4 : 0)
                 last[$2, $3] = $4; lastT = $1 }
    END { span = (lastT - firstT) / 60
          for (k in last) { split(k, p, SUBSEP); ms[p[2]] += (last[k] - first[k]) / 1e6 }
          printf "# from %d s to %d s (%.1f min), ms of CPU a minute by thread name\n", firstT, lastT, span
          for (n in ms) if (ms[n] / span >= 0.05) printf "%-28s %8.1f\n", n, ms[n] / span }' \
    "$run/samples" >"$run/per-thread.tmp"
{ grep '^#' "$run/per-thread.tmp"; grep -v '^#' "$run/per-thread.tmp" | sort -k2,2 -rn; } | tee "$run/per-thread.txt"
rm -f "$run/per-thread.tmp"
# A timeline, seconds since the agent started: each window in which a thread used over BURST ms, the agent's log
# lines (their message) and the requests the mock server received (its own log, a line each).
{
    awk -v burst="$burst" '
        { key = $2 SUBSEP $3; if (key in prev && $4 - prev[key] > burst * 1e6 && $3 != "process")
              printf "%s burst %s %.0f ms (%s-%s s)\n", $1, $3, ($4 - prev[key]) / 1e6, prevT[key], $1
          prev[key] = $4; prevT[key] = $1 }' "$run/samples"
    while IFS= read -r l; do
        ts=${l#time=}; ts=${ts%% *}
        s=$(date -d "$ts" +%s 2>/dev/null) || continue
        echo "$((s - start)) log ${l#* level=}"
    done <"$run/agent.log"
    grep ' received request: ' "$run/mock.log" | while read -r s rest; do
        rest=${rest#* received request: }; echo "$((s - start)) request ${rest% H2 and responded*}"
    done
} | sort -n -s -k1,1 >"$run/timeline.txt"
echo "timeline: $run/timeline.txt"
