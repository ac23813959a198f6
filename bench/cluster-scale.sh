#!/bin/sh
# inventory, match and akash on a cluster of N nodes with objects of realistic size (issue 37), from a records file
# (kubectl get gpucapacities,nodes -o json and -o yaml) and from fabric8's mock API server in CRUD mode. Each command
# runs in a JVM of its own with the launcher's flags (agent/cli/src/build/command-jvm.flags), in process, so the
# figures leave the JVM's start-up out: ms is the command's wall time (for --cluster, the lists' transfer from the
# mock server included), rss its JVM's peak RSS (VmHWM). Not part of `mvn verify`: minutes per node count.
#
# Usage: bench/cluster-scale.sh [--no-build] [NODES...]       (default: 500 5000 10000)
#   BENCH_ROUNDS    runs of each command (default 1; with more, each run is printed)
#   BENCH_SOURCES   what to read (default "json yaml api-server")
#   BENCH_COMMANDS  what to run (default "inventory match akash"); "list" reads the records and Nodes alone, as the
#                   commands do, and keeps nothing (ClusterScaleBench list): a command's CPU less this is its work after
#                   the lists arrive. It runs on this tree only (the base's reader may differ; say so when it does)
#   BENCH_BASE      a built tree of another commit (a `git worktree add --detach DIR SHA`, built with the same mvn
#                   line as below): each run is made by the base and then by this tree, on the same files and server,
#                   so that before and after come from one run on one machine; the side is printed before the figures
#
# Each line ends with the one-minute load average when the run ended: on a shared machine CPU time is the figure
# to read, wall time follows the load.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=bench/target/cluster-scale
mkdir -p "$out"
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
rounds=${BENCH_ROUNDS:-1}
sources=${BENCH_SOURCES:-json yaml api-server}
commands=${BENCH_COMMANDS:-inventory match akash}
if [ "${1:-}" = "--no-build" ]; then
    shift
else
    echo "building (mvn package, test classes, class path) ..." >&2
    mvn -o -q -B -DskipTests package dependency:build-classpath -Dmdep.includeScope=test \
        -Dmdep.outputFile=target/test.classpath -pl agent/cli -am
fi
[ $# -gt 0 ] || set -- 500 5000 10000
cp="agent/cli/target/test-classes:agent/cli/target/classes:$(cat agent/cli/target/test.classpath)"
flags=$(cat agent/cli/src/build/command-jvm.flags)
server=""
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

cat >"$out/akash-gpus.json" <<'JSON'
{"10de": {"name": "nvidia", "devices": {"2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"}}},
 "1002": {"name": "amd", "devices": {"74a1": {"name": "mi300x", "interface": "OAM", "memory_size": "192Gi"}}}}
JSON

sides="tree"
if [ -n "${BENCH_BASE:-}" ]; then
    sides="base tree"
    base_cp="$BENCH_BASE/agent/cli/target/test-classes:$BENCH_BASE/agent/cli/target/classes:$(cat "$BENCH_BASE/agent/cli/target/test.classpath")"
fi
side_cp() { if [ "$1" = base ]; then echo "$base_cp"; else echo "$cp"; fi; }
measure() { # NODES SOURCE-LABEL SOURCE-ARGS...
    # Round by round, every command in each round (and each side in turn): a machine that slows down mid-run slows
    # every command and both sides alike.
    n=$1; label=$2; shift 2
    r=0
    while [ "$r" -lt "$rounds" ]; do
        for cmd in $commands; do
            case $cmd in
                list) # shellcheck disable=SC2086
                    line=$("$java" $flags -cp "$cp" io.gpudetect.bench.ClusterScaleBench list ${2:-} 2>"$out/err.txt" \
                        | tail -1)
                    [ -n "$line" ] || line="no figures: $(tail -n 1 "$out/err.txt")"
                    printf '%6s  %-12s %-10s %-5s %s load=%s\n' "$n" "$label" list tree "$line" \
                        "$(cut -d' ' -f1 /proc/loadavg)"
                    continue ;;
                inventory) args="inventory $* --now 2026-05-01T10:01:00Z -o json" ;;
                match) args="match $* --gpu vendor=nvidia,model=h100,count=8 -o json" ;;
                akash) args="akash $* --akash-table $out/akash-gpus.json -o json" ;;
            esac
            for side in $sides; do
                # shellcheck disable=SC2086
                line=$("$java" $flags -cp "$(side_cp "$side")" io.gpudetect.bench.ClusterScaleBench run $args \
                    2>"$out/err.txt" | tail -1)
                # Out of heap, the flags end the JVM at once (status 3) with its line on stderr and no figures.
                [ -n "$line" ] || line="no figures: $(tail -n 1 "$out/err.txt")"
                printf '%6s  %-12s %-10s %-5s %s load=%s\n' "$n" "$label" "$cmd" "$side" "$line" \
                    "$(cut -d' ' -f1 /proc/loadavg)"
            done
        done
        r=$((r + 1))
    done
}

printf '%6s  %-12s %-10s %-5s %s\n' nodes source command side result
for n in "$@"; do
    for format in json yaml; do
        case " $sources " in *" $format "*) ;; *) continue ;; esac
        file=$out/cluster-$n.$format
        [ -f "$file" ] || "$java" -cp "$cp" io.gpudetect.bench.ClusterScaleBench generate "$n" "$format" "$file" >&2
        measure "$n" "$format:$(( $(stat -c %s "$file") / 1048576 ))MB" --records "$file"
    done
    case " $sources " in *" api-server "*) ;; *) continue ;; esac
    rm -f "$out/ready"
    # 6 GiB: the mock server holds each full list as JSON trees to page it; at 10,000 nodes 3 GiB left it answering
    # too slowly (the command's requests timed out).
    "$java" -Xmx6g -cp "$cp" io.gpudetect.bench.ClusterScaleBench serve "$n" "$out/kubeconfig" >"$out/ready" 2>"$out/server.err" &
    server=$!
    while ! grep -q ready "$out/ready" 2>/dev/null; do
        kill -0 "$server" || { cat "$out/server.err" >&2; exit 1; }
        sleep 1
    done
    KUBECONFIG=$root/$out/kubeconfig measure "$n" "api-server" --cluster
    kill "$server"; wait "$server" 2>/dev/null || true; server=""
done
