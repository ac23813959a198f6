#!/bin/sh
# Start-up of this working tree against another commit, in one run: the way to see a start-up regression before
# it lands (issue 37: an AMD replay went from 2.07x hello-world to 3x and nobody saw it for a week).
#
# Usage: bench/compare.sh [--no-build] [--counts] BASE
#   BASE            a commit (sha, branch, HEAD~3). Checked out with `git worktree add --detach` under
#                   $COMPARE_DIR (default /tmp/gpu-detect-compare/SHA, outside the repository) and built there with
#                   `mvn -q -B -o -DskipTests package`, once: a later run for the same commit reuses the build.
#                   Remove it with `git worktree remove --force DIR`.
#   --no-build      this tree is built already (otherwise it is built with the same command first)
#   --counts        instead of timing, count what each command of the start-up set does, once a side: figures that
#                   a busy machine does not move, so that a change of a few per cent shows where timings cannot
#                   tell it from noise (below)
#   COMPARE_ROUNDS  rounds (default 15)
#   COMPARE_AKASH   how Akash's table is found, the same for both sides: cached (default: a copy fetched today in
#                   the cache folder, what a host with a network reads on most starts), offline (a failure noted
#                   less than an hour ago, no copy: a host without a network), none (--akash-table none)
#
# The start-up set, each run by both launchers: live detection on the stand-in H100 (the tests' libnvidia-ml.so.1,
# native/src/test/c/fake_nvml.c, scenario h100, calibrated to cost what the H100's NVML costs; bench/nvml-host.sh
# for its sysfs), the replay of our H100 bundle (test-fixtures/live-bundles), the replay of an 8-GPU AMD rocminfo
# recording, the replay of an nvidia-smi --query-gpu CSV, and --version; plus `java Hello` as the yardstick. Every
# round runs all of them once, in a new random order (interleaved: a machine that slows down mid-run slows both
# sides alike). Times come from wait4: wall, and CPU (user + system, all threads), which a busy machine disturbs
# less than wall time; on a shared machine read the CPU table first.
#
# Printed per command: each side's median, and three ratios taken round by round (tree/base, base/hello,
# tree/hello), each as its median and, in brackets, the 25th and 75th percentiles of the per-round ratios (the
# spread: a wide one says the machine was noisy, and a tree/base whose bracket holds 1.00 is no change seen).
# The rounds' raw figures go to bench/target/compare-SHA.tsv. Record each comparison of a change to the command's
# path in docs/performance.md.
#
# --counts prints, per command and side: the classes loaded and how many of them the class-data archive did not
# serve (read from a jar or the JDK's image, or spun at run time: lambda forms, proxies), the JIT compilations
# (the median of three runs: C1 compiles on a thread of its own, and what is still queued at exit is not made, so
# the count moves by 1-2% run to run on a quiet machine and by up to 15% at load 4-10), the heap
# allocated (with TLABs off and a heap large enough that nothing is collected: the heap used at exit less the
# archive's mapped heap objects), the GC pauses under the launcher's own flags (G1 sizes its young generation by
# the pauses' times, so where there are several their count moves too), the files opened and the bytes read
# from jars (strace, where installed), and the instructions executed in the interpreter (valgrind's callgrind with
# -Xint, where installed: the same to 0.02% run to run, against a few per cent for C1's mixed mode; each run takes
# 15-30 s). The stand-in NVML runs without its calibrated costs (FAKE_NVML_COSTS=0), which spin on a CPU clock.
# Then the classes loaded on one side only, lambda classes by their host class. Every figure but the JIT and GC
# counts is the same on any run of the same build (instructions to 0.1%, the heap to a few KiB); the two sides'
# paths differ in length (BASE's worktree is under /tmp), which is about 0.9 million instructions on every command.
# The logs are kept in bench/target/counts-SHA/.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build_tree=1
counts=
while [ "$#" -gt 1 ]; do
    case $1 in
        --no-build) build_tree= ;;
        --counts) counts=1 ;;
        *) break ;;
    esac
    shift
done
if [ "$#" -ne 1 ]; then
    echo "usage: bench/compare.sh [--no-build] [--counts] BASE" >&2
    exit 2
fi
base=$(git rev-parse --verify --quiet "$1^{commit}") || {
    echo "compare.sh: $1 is not a commit of this repository" >&2
    exit 2
}
short=$(git rev-parse --short "$base")
rounds=${COMPARE_ROUNDS:-15}
akash=${COMPARE_AKASH:-cached}
out=$root/bench/target
dir=${COMPARE_DIR:-/tmp/gpu-detect-compare/$short}
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
javac=${JAVA_HOME:+$JAVA_HOME/bin/}javac
shared=$root/../shared
amd=$shared/fixtures/hosts/rocminfo_8x-vega20-gfx906_4-numa-epyc-7551p
csv=$shared/fixtures/hosts/h100-80gb-hbm3_590.48.01_only-query-csv
h100=$root/test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm
for bundle in "$amd" "$csv" "$h100"; do
    if [ ! -d "$bundle" ]; then
        echo "compare.sh: $bundle not found (the AMD and CSV recordings live in ../shared/fixtures/hosts)" >&2
        exit 1
    fi
done
mkdir -p "$out"

# build DIR WHAT: mvn package in DIR, its output kept in a log that is shown only when the build fails.
build() {
    echo "compare.sh: building $2 in $1 ..." >&2
    log=$out/compare-build-$(basename "$1").log
    if ! (cd "$1" && mvn -q -B -o -DskipTests package) >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        echo "compare.sh: the build of $2 failed (whole log: $log); a commit whose dependencies this machine has" \
            "never downloaded needs one build without -o in $1" >&2
        exit 1
    fi
}

# The build trains its class-data archive on recordings of ../shared beside the checkout: the worktree gets the
# same ones (a link beside it), or its archive would lack them and BASE would look slower than it is.
if [ -d "$shared" ] && [ ! -e "$(dirname "$dir")/shared" ]; then
    mkdir -p "$(dirname "$dir")"
    ln -s "$(cd "$shared" && pwd)" "$(dirname "$dir")/shared"
fi
if [ ! -f "$dir/.compare-built" ]; then
    if [ ! -d "$dir" ]; then
        mkdir -p "$(dirname "$dir")"
        git worktree add --detach "$dir" "$base" >/dev/null
    fi
    build "$dir" "$short"
    echo "$base" >"$dir/.compare-built"
fi
if [ -n "$build_tree" ]; then
    build "$root" "the working tree"
fi

# The stand-in NVML and its host root, the yardstick, and Akash's table, shared by both sides.
if [ ! -f "$out/fake-nvml/current/usr/lib64/libnvidia-ml.so.1" ]; then
    sh native/src/test/c/build-fake-nvml.sh "$out/fake-nvml" >&2
fi
"$javac" -d "$out" bench/Hello.java
host=$out/nvml-host
sh bench/nvml-host.sh "$host"
driver=$out/fake-nvml/current
export FAKE_NVML_SCENARIO=h100
cache=$out/compare-cache
rm -rf "$cache" && mkdir -p "$cache/gpu-detect"
unset GPU_DETECT_AKASH_TABLE GPU_DETECT_JAVA_OPTS
case $akash in
    cached)
        if [ -f "$shared/data/akash-gpus.json" ]; then
            cp "$shared/data/akash-gpus.json" "$cache/gpu-detect/akash-gpus.json"
        else
            echo '{"10de": {"name": "nvidia", "devices": {"2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"}}}}' \
                >"$cache/gpu-detect/akash-gpus.json"
        fi
        ;;
    offline) echo "cannot fetch the Akash GPU table (compare.sh: offline)" >"$cache/gpu-detect/akash-gpus.json.failed" ;;
    none) export GPU_DETECT_AKASH_TABLE=none ;;
    *) echo "compare.sh: COMPARE_AKASH is cached, offline or none, not $akash" >&2; exit 2 ;;
esac
export XDG_CACHE_HOME="$cache"

# Both launchers must detect the stand-in's H100 through NVML: a run where NVML is unavailable times something else.
for launcher in "$dir/gpu-detect" "$root/gpu-detect"; do
    if ! "$launcher" --host-root "$host" --driver-root "$driver" --output json | grep -q '"uuid" : "nvml"'; then
        echo "compare.sh: $launcher did not detect the stand-in H100 through NVML" >&2
        exit 1
    fi
done

if [ -n "$counts" ]; then
    echo "compare.sh: counting, base $short against the working tree, Akash's table $akash ..." >&2
    python3 - "$out/counts-$short" "$dir/gpu-detect" "$root/gpu-detect" "$host" "$driver" "$h100" "$amd" "$csv" \
        "$short" "$akash" <<'PYTHON'
import collections, os, re, shutil, statistics, subprocess, sys
logs, base, tree, host, driver, h100, amd, csv, short, akash = sys.argv[1:]
figures = [
    ("live, stand-in H100 (-o json)", "live", ["--host-root", host, "--driver-root", driver, "--output", "json"]),
    ("replay, H100 bundle", "h100", ["--replay", h100]),
    ("replay, 8x AMD rocminfo", "amd", ["--replay", amd]),
    ("replay, nvidia-smi CSV", "csv", ["--replay", csv]),
    ("--version", "version", ["--version"]),
]
sides = [("base", base), ("tree", tree)]
shutil.rmtree(logs, ignore_errors=True)
os.makedirs(logs)
strace = shutil.which("strace")
valgrind = shutil.which("valgrind")

def run(launcher, args, opts, wrap=()):
    # The launcher adds GPU_DETECT_JAVA_OPTS after its own flags: the log options leave those as they are. The
    # stand-in NVML's calibrated costs spin until a thread's CPU clock has moved: as many instructions as the
    # machine's speed under valgrind makes them, so they are off here (the same calls, the same on both sides).
    env = dict(os.environ, GPU_DETECT_JAVA_OPTS=" ".join(opts), FAKE_NVML_COSTS="0")
    p = subprocess.run(list(wrap) + [launcher] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return p.returncode, p.stderr.decode(errors="replace")

def lines(path):
    with open(path, errors="replace") as f:
        return f.read().splitlines()

LOADED = re.compile(r"\[class,load\] (\S+) source: (.*)$")
def classes(path):
    names, outside = collections.Counter(), 0
    for line in lines(path):
        m = LOADED.search(line)
        if m:
            # A lambda's class is named by a counter and an address that differ from run to run: keep its host.
            names[re.sub(r"\$\$Lambda\$\d+/0x[0-9a-f]+$", "$$Lambda", m.group(1))] += 1
            outside += m.group(2) != "shared objects file"
    return names, outside

def kib(text):
    n, unit = re.fullmatch(r"(\d+)([KMG]?)", text).groups()
    return int(n) * {"": 1 / 1024, "K": 1, "M": 1024, "G": 1024 * 1024}[unit]

results = {}
for label, key, args in figures:
    for side, launcher in sides:
        f = {}
        stem = f"{logs}/{key}-{side}"
        jit = []
        for i in range(3):
            code, err = run(launcher, args, [f"-Xlog:class+load:file={stem}.classes{i}",
                                             f"-Xlog:jit+compilation=debug:file={stem}.jit{i}",
                                             f"-Xlog:gc:file={stem}.gc{i}"])
            jit.append(len(lines(f"{stem}.jit{i}")))
        f["exit status"] = code
        names, outside = classes(f"{stem}.classes0")
        f["classes loaded"] = sum(names.values())
        f["  not from the archive"] = outside
        f["JIT compilations (median of 3)"] = int(statistics.median(jit))
        f["GC pauses"] = sum("Pause" in line for line in lines(f"{stem}.gc0"))
        # No TLABs, so that the heap's used figure is what was allocated, and no collection to take any back.
        run(launcher, args, ["-XX:-UseTLAB", "-Xms120m", "-Xmn100m", f"-Xlog:gc+heap+exit,gc:file={stem}.heap",
                             f"-Xlog:cds:file={stem}.cds"])
        used = [kib(m.group(1)) for line in lines(f"{stem}.heap")
                for m in [re.search(r"garbage-first heap\s+total \S+ used (\S+)", line)] if m]
        archived = sum(int(m.group(1)) for line in lines(f"{stem}.cds")
                       for m in [re.search(r"Trying to map heap data: .* size = +(\d+) bytes", line)] if m) / 1024
        collected = any("Pause" in line for line in lines(f"{stem}.heap"))
        f["heap allocated, KiB"] = None if collected or not used else round(used[-1] - archived)
        if strace:
            run(launcher, args, [], [strace, "-f", "-qq", "-y", "-e", "trace=openat,open,read,pread64", "-o",
                                     f"{stem}.strace"])
            opened, jar, pending = 0, 0, {}
            for line in lines(f"{stem}.strace"):
                pid, _, call = line.partition(" ")
                call = call.lstrip()
                # A call that another thread interrupted is written in two lines: its arguments, then its result.
                if call.endswith("<unfinished ...>"):
                    pending[pid] = call[:-len("<unfinished ...>")].rstrip()
                    continue
                m = re.match(r"<\.\.\. \w+ resumed>(.*)$", call)
                if m:
                    call = pending.pop(pid, "") + m.group(1)
                m = re.match(r"(openat|open)\(.*\)\s+= \d+<(.*)>$", call)
                # The JVM reads its cgroup's memory files as often as C1 queues work: a timing, not a count.
                if m and not m.group(2).startswith(("/proc/", "/sys/fs/cgroup/")):
                    opened += 1
                m = re.match(r"(read|pread64)\(\d+<[^>]*\.jar>.*\)\s+= (\d+)$", call)
                if m:
                    jar += int(m.group(2))
            f["files opened"] = opened
            f["bytes read from jars"] = jar
        if valgrind:
            # The interpreter alone: C1's compilations run on their own thread as valgrind schedules it, which moves
            # the count by a few per cent; with -Xint the same build gives the same count to 0.02%.
            run(launcher, args, ["-Xint"], [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null",
                                            "--smc-check=all-non-file", "--trace-children=yes",
                                            f"--log-file={stem}.valgrind.%p"])
            irs = []
            for name in os.listdir(logs):
                if name.startswith(f"{key}-{side}.valgrind."):
                    irs += [int(m.group(1).replace(",", "")) for line in lines(f"{logs}/{name}")
                            for m in [re.search(r"Collected : ([\d,]+)", line)] if m]
            f["instructions, -Xint (millions)"] = round(sum(irs) / 1e6, 1) if irs else None
        results[(key, side)] = (f, names)

print(f"\nstart-up counts, working tree against {short}, Akash's table {akash}: the same on any run of the same build "
      f"but the JIT and GC counts (C1's queue and G1's sizing follow the clock: +-1-2% quiet, up to 15% at load 4-10)" + ("" if strace else "; strace not found: no file figures")
      + ("" if valgrind else "; valgrind not found: no instruction counts"))
for label, key, _ in figures:
    (b, bnames), (t, tnames) = results[(key, "base")], results[(key, "tree")]
    print(f"\n{label:<34} {short:>10} {'tree':>10}  tree - base")
    for name in b:
        x, y = b[name], t[name]
        if x is None or y is None:
            print(f"  {name:<32} {x if x is not None else '-':>10} {y if y is not None else '-':>10}")
            continue
        d = y - x
        pct = f" ({d / x * 100:+.1f}%)" if x and d else ""
        print(f"  {name:<32} {x:>10} {y:>10}  {d:+.1f}{pct}" if isinstance(d, float) else
              f"  {name:<32} {x:>10} {y:>10}  {d:+d}{pct}")
    for title, only, side in (("only in the tree", tnames - bnames, "tree"), (f"only at {short}", bnames - tnames, "base")):
        if only:
            listed = [f"{n} x{c}" if c > 1 else n for n, c in sorted(only.items())]
            with open(f"{logs}/{key}-only-{side}.txt", "w") as f:
                f.write("\n".join(listed) + "\n")
            more = f", ... {len(listed) - 20} more in {key}-only-{side}.txt" if len(listed) > 20 else ""
            print(f"  classes {title} ({sum(only.values())}): {', '.join(listed[:20])}{more}")
print(f"\nlogs: {logs}")
PYTHON
    exit 0
fi

echo "compare.sh: $rounds rounds, base $short against the working tree, Akash's table $akash ..." >&2
python3 - "$rounds" "$out/compare-$short.tsv" "$java" "$out" "$dir/gpu-detect" "$root/gpu-detect" \
    "$host" "$driver" "$h100" "$amd" "$csv" "$short" "$akash" <<'PYTHON'
import os, random, statistics, subprocess, sys, time
rounds, tsv, java, out, base, tree, host, driver, h100, amd, csv, short, akash = sys.argv[1:]
rounds = int(rounds)
figures = [
    ("live, stand-in H100 (-o json)", ["--host-root", host, "--driver-root", driver, "--output", "json"]),
    ("replay, H100 bundle", ["--replay", h100]),
    ("replay, 8x AMD rocminfo", ["--replay", amd]),
    ("replay, nvidia-smi CSV", ["--replay", csv]),
    ("--version", ["--version"]),
]
commands = [("hello", None, [java, "-cp", out, "Hello"])]
for name, args in figures:
    commands.append((name, "base", [base] + args))
    commands.append((name, "tree", [tree] + args))

def run(cmd):
    t = time.perf_counter_ns()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = (time.perf_counter_ns() - t) / 1e6
    return wall, (usage.ru_utime + usage.ru_stime) * 1e3, os.waitstatus_to_exitcode(status)

# One round not counted: it warms the page cache and takes each command's exit status, which every later run
# must repeat (a run that failed half-way would time something else).
expected = [run(c)[2] for _, _, c in commands]
for (name, side, _), code in zip(commands, expected):
    other = [e for (n, s, _), e in zip(commands, expected) if n == name and s != side]
    if side == "tree" and other and other[0] != code:
        print(f"compare.sh: note: {name} exits {other[0]} at the base and {code} in the tree", file=sys.stderr)
with open("/proc/loadavg") as f:
    load_start = f.read().split()[0]
wall = [[] for _ in commands]
cpu = [[] for _ in commands]
for r in range(rounds):
    order = list(range(len(commands)))
    random.shuffle(order)
    for i in order:
        w, c, code = run(commands[i][2])
        if code != expected[i]:
            sys.exit(f"compare.sh: {' '.join(commands[i][2])} exited {code} in round {r + 1}, {expected[i]} before")
        wall[i].append(w)
        cpu[i].append(c)
with open("/proc/loadavg") as f:
    load_end = f.read().split()[0]
with open(tsv, "w") as f:
    f.write("figure\tside\tround\twall_ms\tcpu_ms\n")
    for i, (name, side, _) in enumerate(commands):
        for r in range(rounds):
            f.write(f"{name}\t{side or '-'}\t{r + 1}\t{wall[i][r]:.1f}\t{cpu[i][r]:.1f}\n")

def quartiles(values):
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[1], q[0], q[2]

def ratio(a, b):
    m, lo, hi = quartiles([x / y for x, y in zip(a, b)])
    return f"{m:5.2f} [{lo:.2f}-{hi:.2f}]"

med = statistics.median
print(f"\nstart-up, working tree against {short}, {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, {rounds} interleaved "
      f"rounds, {os.cpu_count()} CPUs, load {load_start} at the start and {load_end} at the end, Akash's table {akash}")
print("ratios: median of the per-round ratios [25th-75th percentile]")
for label, data in (("wall", wall), ("CPU (user + system)", cpu)):
    print(f"\n{label + ', ms':<30} {'base':>7} {'tree':>7}  {'tree/base':<18} {'base/hello':<18} {'tree/hello'}")
    hello = data[0]
    print(f"{'java Hello':<30} {med(hello):7.1f}")
    for name, _ in figures:
        b = next(i for i, c in enumerate(commands) if c[0] == name and c[1] == "base")
        t = b + 1
        print(f"{name:<30} {med(data[b]):7.1f} {med(data[t]):7.1f}  {ratio(data[t], data[b]):<18} "
              f"{ratio(data[b], hello):<18} {ratio(data[t], hello)}")
print(f"\nraw figures: {tsv}")
PYTHON
