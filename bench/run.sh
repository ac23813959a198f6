#!/bin/sh
# The performance benchmark (docs/performance.md explains each figure). Builds what it needs,
# runs each measurement several times, and prints one table: our value, the reference measured in the
# same run, their ratio, the target, pass or fail. Not part of `mvn verify`: it takes a few minutes.
#
# Usage: bench/run.sh [--no-build]
#   BENCH_ROUNDS     start-up runs of each command (default 9; medians are reported)
#   BENCH_NODES      nodes in the API-load simulation (default 1000)
#   BENCH_STEADY_S   seconds of simulated steady state (default 60, at 10x time compression)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=bench/target
mkdir -p "$out"
rounds=${BENCH_ROUNDS:-9}
nodes=${BENCH_NODES:-1000}
steady=${BENCH_STEADY_S:-60}
eight_gpus=../shared/fixtures/hosts/rocminfo_8x-vega20-gfx906_4-numa-epyc-7551p
agent_host=test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
javac=${JAVA_HOME:+$JAVA_HOME/bin/}javac
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

if [ "${1:-}" != "--no-build" ]; then
    echo "building (mvn package, test classes, fake NVML library) ..." >&2
    # The class path file is written in the same run, so this tree's modules resolve to their fresh jars.
    mvn -q -B -DskipTests package dependency:build-classpath -Dmdep.includeScope=test \
        -Dmdep.outputFile=target/test.classpath
    sh native/src/test/c/build-fake-nvml.sh "$out/fake-nvml" >&2
fi
"$javac" -d "$out" bench/Hello.java bench/Idle.java
cp="agent/cli/target/test-classes:agent/cli/target/classes:test-fixtures/target/test-classes:$(cat agent/cli/target/test.classpath)"

now_ns() { date +%s%N; }
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
kib() { awk -v k="$2" '$1==k":" {print $2}' "/proc/$1/status"; }
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
passes() { curl -s "localhost:$1/metrics" | awk '/^gpu_detect_passes_total/ {s+=$2} END {print s+0}'; }
rows=""
row() { rows="$rows$(printf '%-44s|%12s |%12s |%7s |%10s |%5s' "$@")
"; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN {print (v <= t) ? "pass" : "FAIL"}'; }

# --- 1. Start-up: the 8-GPU replay to JSON against a plain hello-world, interleaved --------------------
# Also timed in the same rounds: live detection through NVML (the tests' stand-in libnvidia-ml.so.1 and a
# host root whose sysfs shows the same H100, bench/nvml-host.sh; bench/nvml-startup.sh compares builds on it)
# and, without a target, the same replay as a table and live detection on this machine (whatever GPU tools
# and sysfs it has; on a build machine, none of the tools).
echo "start-up: $rounds rounds ..." >&2
nvml_host=$root/$out/nvml-host
sh bench/nvml-host.sh "$nvml_host"
export FAKE_NVML_SCENARIO=h100
# Akash's table as most starts read it, a file (the day's cached copy): the shared copy beside the checkout, else
# none; never the network, whose wait would swamp the figures.
GPU_DETECT_AKASH_TABLE=none
[ -f ../shared/data/akash-gpus.json ] && GPU_DETECT_AKASH_TABLE=$(cd ../shared/data && pwd)/akash-gpus.json
export GPU_DETECT_AKASH_TABLE
: >"$out/hello.ms"; : >"$out/replay.ms"; : >"$out/table.ms"; : >"$out/live.ms"; : >"$out/nvml-live.ms"
elapsed() { t=$(now_ns); "$@" >/dev/null 2>&1; echo $(( ($(now_ns) - t) / 1000000 )); }
i=0
while [ "$i" -lt "$rounds" ]; do
    elapsed "$java" -cp "$out" Hello >>"$out/hello.ms"
    t=$(now_ns); ./gpu-detect --replay "$eight_gpus" --output json >"$out/replay.json"
    echo $(( ($(now_ns) - t) / 1000000 )) >>"$out/replay.ms"
    elapsed ./gpu-detect --replay "$eight_gpus" >>"$out/table.ms"
    elapsed ./gpu-detect >>"$out/live.ms"
    elapsed ./gpu-detect --host-root "$nvml_host" --driver-root "$root/$out/fake-nvml/current" \
        --output json >>"$out/nvml-live.ms"
    i=$((i + 1))
done
hello_ms=$(median <"$out/hello.ms")
replay_ms=$(median <"$out/replay.ms")
ratio_to_hello() { awk -v a="$1" -v b="$hello_ms" 'BEGIN {printf "%.2f", a / b}'; }
ratio=$(ratio_to_hello "$replay_ms")
row "start-up: --replay 8 GPUs --output json, ms" "$replay_ms" "$hello_ms" "$ratio" "<= 2.00" "$(verdict "$ratio" 2)"
nvml_ms=$(median <"$out/nvml-live.ms")
nvml_ratio=$(ratio_to_hello "$nvml_ms")
row "start-up: live via NVML (stand-in H100), ms" "$nvml_ms" "$hello_ms" "$nvml_ratio" "<= 2.50" "$(verdict "$nvml_ratio" 2.5)"
table_ms=$(median <"$out/table.ms"); live_ms=$(median <"$out/live.ms")
row "start-up: --replay 8 GPUs (table), ms" "$table_ms" "$hello_ms" "$(ratio_to_hello "$table_ms")" "-" "-"
row "start-up: live detection here, ms" "$live_ms" "$hello_ms" "$(ratio_to_hello "$live_ms")" "-" "-"

# --- 2. Footprint: the agent after 100 passes against the mock API server, and a bare JVM -----------------
echo "footprint: bare JVM ..." >&2
"$java" $(cat agent/cli/src/build/agent-jvm.flags) -cp "$out" Idle 60000 >/dev/null & idle=$!; pids="$pids $idle"
sleep 2
bare_rss=$(( $(kib "$idle" VmRSS) / 1024 ))
kill "$idle"
echo "footprint: agent, 100 passes at 100 ms ..." >&2
"$java" -cp "$cp" io.gpudetect.testing.MockApiServer "$out/kubeconfig" node-1 >"$out/mock.log" 2>&1 & mock=$!; pids="$pids $mock"
n=0; while [ ! -s "$out/kubeconfig" ] && [ "$n" -lt 100 ]; do sleep 0.2; n=$((n + 1)); done
# --port 0: a free port the kernel picks, named in the agent's start line (one drawn at random could collide).
KUBECONFIG="$out/kubeconfig" NODE_NAME=node-1 ./gpu-detect agent --replay "$agent_host" --interval 100ms \
    --startup-jitter 0 --port 0 >"$out/agent.out" 2>"$out/agent.log" & agent=$!; pids="$pids $agent"
port=; n=0
while [ -z "$port" ] && [ "$n" -lt 300 ] && kill -0 "$agent" 2>/dev/null; do
    port=$(sed -n 's/.*msg="agent started".* port=\([0-9][0-9]*\).*/\1/p' "$out/agent.log" 2>/dev/null) || port=
    [ -n "$port" ] || sleep 0.2; n=$((n + 1))
done
n=0; while [ "$(passes "$port")" -lt 100 ] && [ "$n" -lt 600 ]; do sleep 0.2; n=$((n + 1)); done
p1=$(passes "$port"); c1=$(cpu_ticks "$agent")
sleep 10
p2=$(passes "$port"); c2=$(cpu_ticks "$agent")
tick_ms=$(awk -v hz="$(getconf CLK_TCK)" 'BEGIN {print 1000 / hz}')
cpu_per_pass=$(awk -v c=$((c2 - c1)) -v p=$((p2 - p1)) -v t="$tick_ms" 'BEGIN {printf "%.2f", (p > 0) ? c * t / p : -1}')
rss=$(( $(kib "$agent" VmRSS) / 1024 )); anon=$(( $(kib "$agent" RssAnon) / 1024 ))
heap_used=$(jstat -gc "$agent" | awk 'NR==2 {printf "%.1f", ($3+$4+$6+$8)/1024}')
classes=$(jstat -class "$agent" | awk 'NR==2 {print $1}')
threads=$(kib "$agent" Threads)
kill "$agent"; kill "$mock"
row "agent RSS after $p2 passes, MiB" "$rss" "$bare_rss" "$(awk -v a="$rss" -v b="$bare_rss" 'BEGIN {printf "%.2f", a/b}')" "<= 96" "$(verdict "$rss" 96)"
row "agent RssAnon, MiB" "$anon" "-" "-" "-" "-"
row "agent heap used, MiB" "$heap_used" "-" "-" "<= 24" "$(verdict "$heap_used" 24)"
row "agent loaded classes" "$classes" "-" "-" "-" "-"
row "agent threads" "$threads" "-" "-" "-" "-"
row "agent CPU per pass (T4 replay), ms" "$cpu_per_pass" "-" "-" "-" "-"

# --- 3. API-server load: $nodes nodes' agents against one mock API server ------------------------------
echo "API load: $nodes nodes, ${steady}s steady state ..." >&2
"$java" -Xmx1g -Xss256k -Dgpudetect.fixtures=test-fixtures -cp "$cp" io.gpudetect.bench.ApiLoadSimulation \
    "$nodes" "$steady" 10 30 2>"$out/simulation.log" | tee "$out/simulation.out" | grep -v '^RESULT' >&2
result() { awk -v k="$1" '$1=="RESULT" && $2==k {print $3}' "$out/simulation.out"; }
reads=$(result steady_reads_per_pass)
row "API: reads per steady pass" "$reads" "-" "-" "0" "$(verdict "$reads" 0)"
row "API: failed passes in steady state" "$(result steady_failed_passes)" "-" "-" "0" "$(verdict "$(result steady_failed_passes)" 0)"
row "API: requests per node per hour" "$(result steady_requests_per_node_hour)" "-" "-" "-" "-"
row "  of which status heartbeats (measured)" "$(result steady_requests_per_node_hour_measured)" "-" "-" "-" "-"
row "  of which re-watches (modelled)" "$(result steady_rewatches_per_node_hour_modelled)" "-" "-" "-" "-"
row "API: start-up requests, $nodes nodes" "$(result startup_at_once_requests)" "-" "-" "-" "-"
at_once_failed=$(result startup_at_once_failed_passes)
jitter_failed=$(result startup_jitter_30s_failed_passes)
row "API: start-up failed passes, all at once" "$at_once_failed" "-" "-" "-" "-"
row "API: start-up failed passes, 30 s jitter" "$jitter_failed" "$at_once_failed" "-" "< ref" \
    "$(awk -v a="$jitter_failed" -v b="$at_once_failed" 'BEGIN {print (a < b || a == 0) ? "pass" : "FAIL"}')"
row "API: start-up peak req/s, all at once" "$(result startup_at_once_peak_requests_per_second)" "-" "-" "-" "-"
row "API: start-up peak req/s, 30 s jitter" "$(result startup_jitter_30s_peak_requests_per_second)" "-" "-" "-" "-"

# --- 4. Detection pass: an 8-GPU recorded host, and NVML through the fake library ------------------------
echo "detection pass ..." >&2
"$java" -cp "$cp" io.gpudetect.bench.DetectionPassBenchmark "$eight_gpus" 200 >"$out/detect.out" 2>&1
row "detection: first pass, 8 GPUs (rocminfo), ms" "$(awk '$2=="detection_first_pass_ms" {print $3}' "$out/detect.out")" "-" "-" "-" "-"
row "detection: later passes, median, ms" "$(awk '$2=="detection_pass_median_ms" {print $3}' "$out/detect.out")" "-" "-" "-" "-"
if [ -f "$out/fake-nvml/current/usr/lib64/libnvidia-ml.so.1" ]; then
    FAKE_NVML_SCENARIO=8xa100-mig "$java" -cp "$cp" io.gpudetect.fixtures.NvmlVsSmiBenchmark "$out/fake-nvml/current" \
        ../shared/fixtures 200 >"$out/nvml.out" 2>&1 || true
    nvml_us=$(awk '/^round 2:/ {print $5}' "$out/nvml.out")
    smi_us=$(awk '/^round 2:/ {print $15}' "$out/nvml.out")
    row "detection: 8x A100 via fake NVML, us" "${nvml_us:--}" "${smi_us:--}" \
        "$(awk -v a="${nvml_us:-0}" -v b="${smi_us:-1}" 'BEGIN {printf "%.2f", a/b}')" "-" "-"
fi

# --- 5. A live pass: every source, the probe plan, the steady state (8x A100 fake host, every tool failing) ---
if [ -f "$out/fake-nvml/current/usr/lib64/libnvidia-ml.so.1" ]; then
    echo "live pass ..." >&2
    "$java" -cp "$cp" io.gpudetect.livehost.LiveHostPassBenchmark "$out/fake-nvml/current" 200 >"$out/live-pass.out" 2>&1 || true
    live() { awk -v k="$1" '$2==k {print $3}' "$out/live-pass.out"; }
    row "live pass, every source: processes" "$(live pass_every_source_processes)" "-" "-" "-" "-"
    row "live pass, planned: processes" "$(live pass_planned_processes)" "-" "-" "0" "$(verdict "$(live pass_planned_processes)" 0)"
    row "live pass, planned: CPU ms" "$(live pass_planned_cpu_ms)" "$(live pass_every_source_cpu_ms)" "-" "-" "-"
    row "live pass, steady state: CPU ms" "$(live pass_steady_cpu_ms)" "-" "-" "5" "$(verdict "$(live pass_steady_cpu_ms)" 5)"
fi

echo
echo "gpu-detect performance, $(date -u +%Y-%m-%dT%H:%MZ), $("$java" -version 2>&1 | head -n 1), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-44s|%12s |%12s |%7s |%10s |%5s\n' "figure" "ours" "reference" "ratio" "target" "ok"
printf '%s' "$rows"
echo "references: start-up = plain 'java Hello' (median of $rounds, interleaved); RSS = an idle JVM with the agent's flags;"
echo "  start-up peak = all agents starting at once; fake NVML = the same 8 GPUs parsed from nvidia-smi XML (us)."
echo "details in $out/ (replay.json, simulation.out, nvml.out, detect.out, agent.log)"
