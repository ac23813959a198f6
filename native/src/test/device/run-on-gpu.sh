#!/bin/sh
# Runs gpu-detect on a real NVIDIA host with a jlinked runtime and the built jars, and records a bundle.
#
# Prepare on the build machine (from the repository root):
#   mvn -q -B -DskipTests package
#   jlink --add-modules java.base,java.desktop,java.sql,java.logging,jdk.unsupported \
#         --output .device/jre --strip-debug --no-header-files --no-man-pages
# (jdeps --print-module-deps on the agent jar and target/lib: java.base, java.desktop (Jackson's java.beans),
#  java.sql (Jackson's optional java.sql types); java.logging and jdk.unsupported are added for JNA's safety.)
# Then on the GPU machine, from the repository root:
#   OUT=/some/folder sh native/src/test/device/run-on-gpu.sh [DRIVER_ROOT]
# It writes into $OUT: nvml.json/.txt (NVML only), smi.json (nvidia-smi only), all.json/.txt (both,
# merged), nvidia-smi.xml (raw), and bundle/ from 'gpu-detect record' (replay it with --replay).
set -u
here=$(cd "$(dirname "$0")/../../../.." && pwd)
out=${OUT:?set OUT to a folder for the results}
java="$here/.device/jre/bin/java"
[ -x "$java" ] || java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jar=$(ls "$here"/agent/cli/target/gpu-detect-cli-*.jar | head -n 1)
root_opt=""
[ $# -ge 1 ] && root_opt="--driver-root $1"
mkdir -p "$out"
run() { "$java" -XX:+UseSerialGC -cp "$jar:$here/agent/cli/target/lib/*" io.gpudetect.cli.GpuDetectCommand "$@"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,pci.bus_id,memory.total,mig.mode.current --format=csv; } > "$out/nvidia-smi-L.txt" 2>&1
nvidia-smi -q -x > "$out/nvidia-smi.xml" 2>&1
# NVML alone: hide nvidia-smi from PATH so only the library answers.
PATH=/nonexistent run $root_opt -o json > "$out/nvml.json" 2> "$out/nvml.err"
PATH=/nonexistent run $root_opt -v > "$out/nvml.txt" 2>&1
# nvidia-smi alone: a driver root with no library makes NVML absent... but the system path still finds it,
# so replay the raw XML as a bundle instead (the same parser a live run uses).
mkdir -p "$out/smi-bundle" && cp "$out/nvidia-smi.xml" "$out/smi-bundle/"
run --replay "$out/smi-bundle" -o json > "$out/smi.json" 2> "$out/smi.err"
# Both, as the agent runs: NVML first, nvidia-smi second, merged.
run $root_opt -o json > "$out/all.json" 2> "$out/all.err"
run $root_opt -v > "$out/all.txt" 2>&1
run record "$out/bundle" $root_opt > "$out/record.txt" 2>&1
run --replay "$out/bundle" -o json > "$out/replay.json" 2> "$out/replay.err"
# Timing: 5 one-shot runs each way (JVM start included).
for i in 1 2 3 4 5; do
    s=$(date +%s%N); PATH=/nonexistent run $root_opt -o json >/dev/null 2>&1; e=$(date +%s%N)
    echo "nvml-only run $i: $(( (e - s) / 1000000 )) ms"
    s=$(date +%s%N); run --replay "$out/smi-bundle" -o json >/dev/null 2>&1; e=$(date +%s%N)
    echo "smi-xml replay run $i: $(( (e - s) / 1000000 )) ms"
    s=$(date +%s%N); nvidia-smi -q -x >/dev/null 2>&1; e=$(date +%s%N)
    echo "nvidia-smi -q -x run $i: $(( (e - s) / 1000000 )) ms"
done > "$out/timings.txt"
cat "$out/nvml.txt" "$out/timings.txt"
