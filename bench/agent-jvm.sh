#!/bin/bash
# agent-jvm.sh ROUNDS NAME=FLAGS...: the agent's steady pass and memory under several sets of JVM flags, interleaved.
# Each round runs every NAME once, in a random order: a mock API server (the test classes' MockApiServer, CRUD)
# holding the node, PODS (default 110) of NodePods' pods on it and, with AGENT_DRA=1, the node's ResourceSlice of
# 8 GPUs (as bench/agent-pods.sh); then the agent as in production (./gpu-detect agent, its own flags and archive)
# with FLAGS added last through GPU_DETECT_JAVA_OPTS (so "-Xmixed ..." undoes the flags file's -Xint), a pass every
# AGENT_INTERVAL (default 100ms). Snapshots at passes FROM (default 10), EARLY (default 60), LATE-50 and LATE (default
# 600; LATE=0 stops at EARLY, e.g. for a pass a minute): CPU per pass over FROM..EARLY and LATE-50..LATE, per thread (/proc/PID/task/*/stat, 10 ms ticks): the pass's two threads
# (gpu-detect-agent, nvml-probe), the compiler threads, the rest (the process's own total, which keeps the ticks of
# threads that ended, less those); VmRSS and RssAnon at EARLY and LATE; the load average at the run's end; and
# start_ms, the whole process's CPU from its start to the end of its first pass.
# AGENT_ARGS as in bench/agent-live.sh (e.g. --host-root DIR --driver-root DIR; default: replay the H100 bundle).
# Needs the build bench/run.sh makes (mvn package with the test class path file); run it by hand, it is no test.
# One line a run: round, name, then the figures (header first). Results also in bench/target/agent-jvm/.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:?usage: agent-jvm.sh ROUNDS NAME=FLAGS...}
shift
[ $# -gt 0 ] || { echo "usage: agent-jvm.sh ROUNDS NAME=FLAGS..." >&2; exit 2; }
out=bench/target/agent-jvm
mkdir -p "$out"
cp="agent/cli/target/test-classes:agent/cli/target/classes:test-fixtures/target/test-classes:$(cat agent/cli/target/test.classpath)"
replay=${AGENT_REPLAY:-test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm}
pods=${PODS:-110}
early=${EARLY:-60}
late=${LATE:-600}
from=${FROM:-10}
hz=$(getconf CLK_TCK)

# The agent's passes so far: its "pass done" log lines (reading them costs the agent nothing; asking its /metrics
# would, and at a pass a minute many times a pass).
passes() {
    if [ -f "$run/agent.log" ]; then awk '/msg="pass done"/ {n++} END {print n + 0}' "$run/agent.log"; else echo 0; fi
}
# wait_for PORT PID N [SLEEP]: until the agent has passed N times (or died, or 3,600 looks), looking every SLEEP
# (default 0.5) seconds.
wait_for() {
    n=0
    while [ "$(passes "$1")" -lt "$3" ] && [ "$n" -lt 3600 ] && kill -0 "$2" 2>/dev/null; do sleep "${4:-0.5}"; n=$((n + 1)); done
    kill -0 "$2" 2>/dev/null
}
# snapshot PORT PID: "passes pass_ticks compiler_ticks total_ticks rss_kib anon_kib" now.
snapshot() {
    p=$(passes "$1")
    threads=$(for t in /proc/"$2"/task/*/stat; do cat "$t" 2>/dev/null; echo; done | awk '
        /\(/ { name = $0; sub(/^[^(]*\(/, "", name); sub(/\).*$/, "", name)
               rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " "); t = f[12] + f[13]
               if (name == "gpu-detect-agen" || name == "nvml-probe") pass += t
               else if (name ~ /^C[12] Compiler/) comp += t }
        END { print pass + 0, comp + 0 }')
    total=$(awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/$2/stat")
    rss=$(awk '$1 == "VmRSS:" {print $2}' "/proc/$2/status")
    anon=$(awk '$1 == "RssAnon:" {print $2}' "/proc/$2/status")
    echo "$p $threads $total $rss $anon"
}
# per_pass A B: the CPU per pass between two snapshots, ms: pass threads, compiler, rest, whole process.
per_pass() {
    echo "$1 $2" | awk -v hz="$hz" '{ n = $7 - $1; if (n <= 0) { print "- - - -"; exit }
        ms = 1000 / hz / n; pass = ($8 - $2) * ms; comp = ($9 - $3) * ms; all = ($10 - $4) * ms
        printf "%.2f %.2f %.2f %.2f", pass, comp, all - pass - comp, all }'
}

printf '%s\n' "round name start_ms passes_early pass_ms compiler_ms rest_ms total_ms rss_mib anon_mib" \
    "passes_late pass_ms compiler_ms rest_ms total_ms rss_mib anon_mib load1" | paste -sd' ' | tee -a "$out/results.txt"
for round in $(seq 1 "$rounds"); do
    for config in $(printf '%s\n' "$@" | awk '{print rand() "\t" NR}' | sort | cut -f2); do
        spec=$(printf '%s\n' "$@" | sed -n "${config}p")
        name=${spec%%=*} flags=${spec#*=}
        run=$out/$name-$round
        rm -rf "$run" && mkdir -p "$run"
        java -cp "$cp" io.gpudetect.testing.MockApiServer "$run/kubeconfig" bench "$pods" ${AGENT_DRA:+dra} \
            >"$run/mock.log" 2>&1 &
        mock=$!
        n=0; while [ ! -s "$run/kubeconfig" ] && [ "$n" -lt 300 ]; do sleep 0.2; n=$((n + 1)); done
        port=$((20000 + RANDOM % 20000))
        # shellcheck disable=SC2086 # AGENT_ARGS are words
        KUBECONFIG="$run/kubeconfig" GPU_DETECT_JAVA_OPTS="$flags" ./gpu-detect agent --node bench \
            --interval "${AGENT_INTERVAL:-100ms}" --startup-jitter 0 --port "$port" ${AGENT_ARGS:---replay $replay} \
            >"$run/agent.out" 2>"$run/agent.log" &
        agent=$!
        line="$round $name"
        if wait_for "$port" "$agent" 1 0.1; then
            s0=$(snapshot "$port" "$agent")
            line="$line $(echo "$s0" | awk -v hz="$hz" '{printf "%.0f", $4 * 1000 / hz}')"
            wait_for "$port" "$agent" "$from"
            s10=$(snapshot "$port" "$agent")
            wait_for "$port" "$agent" "$early"
            s1=$(snapshot "$port" "$agent")
            line="$line $(echo "$s1" | awk '{print $1}') $(per_pass "$s10" "$s1") $(echo "$s1" | awk '{printf "%.1f %.1f", $5 / 1024, $6 / 1024}')"
            if [ "$late" -gt 0 ]; then
                wait_for "$port" "$agent" $((late - 50))
                s2=$(snapshot "$port" "$agent")
                wait_for "$port" "$agent" "$late"
                s3=$(snapshot "$port" "$agent")
                line="$line $(echo "$s3" | awk '{print $1}') $(per_pass "$s2" "$s3") $(echo "$s3" | awk '{printf "%.1f %.1f", $5 / 1024, $6 / 1024}')"
            else
                line="$line - - - - - - -"
            fi
        else
            line="$line agent-failed (see $run/agent.log)"
        fi
        line="$line $(cut -d' ' -f1 /proc/loadavg)"
        kill "$agent" 2>/dev/null || true
        wait "$agent" 2>/dev/null || true
        kill "$mock" 2>/dev/null || true
        wait "$mock" 2>/dev/null || true
        echo "$line" | tee -a "$out/results.txt"
    done
done
