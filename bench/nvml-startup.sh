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
# Several launchers (other trees' ./gpu-detect, built) compare builds in the same run: for each launcher
# after the first, the last columns give the median of its per-round differences from the one before it.
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

host=$root/$out/nvml-host
sh bench/nvml-host.sh "$host"
driver=$root/$out/fake-nvml/current
export FAKE_NVML_SCENARIO=h100

# The check that NVML answered: a run where NVML is unavailable would time something else.
for launcher in "$@"; do
    if ! "$launcher" --host-root "$host" --driver-root "$driver" --output json | grep -q '"uuid" : "nvml"'; then
        echo "nvml-startup.sh: $launcher did not detect the GPU through NVML" >&2
        exit 1
    fi
done

# The rounds, timed by Python: wall time around each run, CPU time (user + system, all threads) from wait4,
# in microseconds where /usr/bin/time gives hundredths of a second.
echo "nvml-startup: $rounds rounds of hello-world and $# launcher(s) ..." >&2
python3 - "$rounds" "$out" "$host" "$driver" "$java" "$@" <<'PYTHON'
import os, random, statistics, subprocess, sys, time
rounds, out, host, driver, java = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
launchers = sys.argv[6:]
commands = [[java, "-cp", out, "Hello"]] + [[l, "--host-root", host, "--driver-root", driver, "--output", "json"]
                                           for l in launchers]
wall = [[] for _ in commands]
cpu = [[] for _ in commands]
for _ in range(rounds):
    order = list(range(len(commands)))
    random.shuffle(order)
    for i in order:
        t = time.perf_counter_ns()
        p = subprocess.Popen(commands[i], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        wall[i].append((time.perf_counter_ns() - t) / 1e6)
        cpu[i].append((usage.ru_utime + usage.ru_stime) * 1e3)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            sys.exit(f"nvml-startup.sh: {' '.join(commands[i])} exited {p.returncode}")
with open(os.path.join(out, "nvml-startup.ms"), "w") as f:
    f.write("command round wall_ms cpu_ms\n")
    for i, c in enumerate(commands):
        for r in range(rounds):
            f.write(f"{'hello' if i == 0 else i} {r} {wall[i][r]:.1f} {cpu[i][r]:.1f}\n")
med = statistics.median
with open("/proc/loadavg") as f:
    load = f.read().split()[0]
print(f"\nlive NVML start-up, {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, {rounds} rounds, "
      f"{os.cpu_count()} CPUs, load {load} (at the end)")
print(f"{'command':<56} {'wall ms':>8} {'ratio':>6} {'CPU ms':>8} {'ratio':>6} {'wall -prev':>10} {'CPU -prev':>9}")
for i, c in enumerate(commands):
    name = "java Hello" if i == 0 else launchers[i - 1]
    dw = dc = "-"
    if i > 1:
        dw = f"{med([a - b for a, b in zip(wall[i], wall[i - 1])]):+.1f}"
        dc = f"{med([a - b for a, b in zip(cpu[i], cpu[i - 1])]):+.1f}"
    print(f"{name:<56} {med(wall[i]):8.1f} {med(wall[i]) / med(wall[0]):6.2f} {med(cpu[i]):8.1f} "
          f"{med(cpu[i]) / med(cpu[0]):6.2f} {dw:>10} {dc:>9}")
PYTHON
