#!/bin/sh
# Builds the class-data-sharing archives the ./gpu-detect launcher uses. Training runs list the classes
# they load; a static dump (-Xshare:dump) then writes them, the JDK's own classes included, into one archive
# that later runs map instead of loading and verifying classes again. A static archive also keeps the
# pre-generated method-handle forms that lambdas need, which a dynamic archive (-XX:ArchiveClassesAtExit)
# leaves to be spun at every start.
# - TARGET/gpu-detect.jsa, for the one-shot command: detection on this build machine (whatever it has) and
#   replays of recorded hosts that cover the probes (NVIDIA text and XML, AMD, OpenCL, sysfs, lspci), in
#   each output format, plus --help for the picocli path. Dumped with G1, the command's collector: only then
#   does the archive also hold the JDK's heap objects (module graph, interned strings), several ms of start.
# - TARGET/gpu-detect-agent.jsa, for `gpu-detect agent`: one dry-run agent pass (fabric8's client and model
#   classes, the label profiles, the record), then some seconds of the agent against fabric8's mock API server
#   from the test support (agent/testing; informers, watches, reading Nodes, pods and the record, creating and
#   patching), detecting live on a recorded host's sysfs with the stand-in NVML (JNA, NVML's calls, OSHI, the
#   steady passes): what it loads there would otherwise be loaded from the jars into metaspace at every start
#   (~1,100 classes, ~4 MiB more anonymous memory). Without the test support on the test class path, the dry run
#   only.
# Each archive is made with the flags and the class path its launcher mode uses (src/build/*-jvm.flags; the
# class paths as ./gpu-detect builds them from TARGET/*.classpath): an archive only serves a JVM started the
# same way. Run by Maven at package time; a failure only costs speed, except one: plain detection that fails
# on its own class path (a jar it needs left out of detection.classpath) fails the build.
# Usage: cds-archive.sh TARGET_DIR JAR DETECTION_CLASSPATH_FILE DETECTION_JAR HOSTS_DIR CASES_DIR [TEST_CLASSPATH_FILE]
# DETECTION_CLASSPATH_FILE: the detect module's runtime class path (lib/a.jar:..., ../detect/pom.xml), without
# DETECTION_JAR, the detect module's own jar (lib/gpu-detect-detection-VERSION.jar): together, written here as
# TARGET/detection.classpath, they are what plain detection loads besides JAR's main class.
# HOSTS_DIR: the real recordings (the workspace's shared set, ../shared/fixtures/hosts; replays of those missing
# are left out). The agent trains on the H100 bundle gpu-detect recorded itself (test-fixtures/live-bundles).
target=$1 jar=$2 detection_dependencies=$3 detection_jar=$4 hosts=$5 cases=$6 test_classpath=${7:-}
live=$cases/../live-bundles/h100-sxm5-80gb_580.159.04_vm
here=$(cd "$(dirname "$0")" && pwd)
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
main=io.gpudetect.cli.GpuDetectCommand

# The launcher's two class paths (./gpu-detect builds them the same way): the jar and the jars plain
# detection loads (the detect module's jar and its runtime class path); the jar, those jars again and every
# runtime jar.
read -r detection_dependencies <"$detection_dependencies"
printf '%s' "$detection_jar${detection_dependencies:+:$detection_dependencies}" >"$target/detection.classpath"
read -r detection_jars <"$target/detection.classpath"
read -r runtime_jars <"$target/runtime.classpath"
detection_cp=$jar
every_jar_cp=$jar
IFS=:
for j in $detection_jars; do detection_cp=$detection_cp:$target/$j; done
for j in $detection_jars $runtime_jars; do every_jar_cp=$every_jar_cp:$target/$j; done
unset IFS

# train NAME FLAGS_FILE CLASS_PATH ARGS...: one training run; adds the classes it loaded to TARGET/NAME.classlist.
train() {
    name=$1 flags=$(cat "$2") cp=$3
    shift 3
    # shellcheck disable=SC2086 # the flags are words
    "$java" -Xshare:off -XX:DumpLoadedClassList="$target/$name.part" $flags ${GPU_DETECT_JAVA_OPTS:-} -cp "$cp" $main "$@" \
        >/dev/null 2>>"$target/$name-cds.log"
    status=$?
    add_classes "$name"
    return $status
}

# add_classes NAME: appends TARGET/NAME.part to the class list, each class once. JDK 17's static dump crashed
# (SIGSEGV in SystemDictionaryShared::adjust_lambda_proxy_class_dictionary) on a list with the lines of two
# training runs appended whole, and dumped the same lines deduplicated. An @lambda-proxy line is kept as often as
# one run wrote it, at most: a run writes one line per call site, and the archive keeps one proxy class per line,
# handed to one call site each; with the lines made unique, every further call site of the same lambda (a method
# reference used in several places) spun its class at every start (issue 37: 9 of an H100 replay's 22).
add_classes() {
    if [ -s "$target/$1.part" ]; then
        touch "$target/$1.classlist"
        awk 'FNR == NR { if (/^@lambda-proxy /) kept[$0]++; else seen[$0] = 1; print; next }
             /^@lambda-proxy / { if (++run[$0] > kept[$0]) { kept[$0]++; print }; next }
             !seen[$0]++' "$target/$1.classlist" "$target/$1.part" >"$target/$1.new"
        mv "$target/$1.new" "$target/$1.classlist"
    fi
    rm -f "$target/$1.part"
}

# train_for SECONDS NAME FLAGS_FILE CLASS_PATH ARGS...: as train, for a run that does not end by itself: stopped
# by SIGTERM after SECONDS.
train_for() {
    seconds=$1 name=$2 flags=$(cat "$3") cp=$4
    shift 4
    # shellcheck disable=SC2086 # the flags are words
    "$java" -Xshare:off -XX:DumpLoadedClassList="$target/$name.part" $flags ${GPU_DETECT_JAVA_OPTS:-} -cp "$cp" $main "$@" \
        >/dev/null 2>>"$target/$name-cds.log" &
    pid=$!
    sleep "$seconds"
    kill "$pid" 2>/dev/null
    wait "$pid"
    add_classes "$name"
}

# dump NAME FLAGS_FILE CLASS_PATH: writes TARGET/NAME.jsa from the class list; logs in TARGET/NAME-cds.log.
dump() {
    name=$1 flags=$(cat "$2") cp=$3
    # shellcheck disable=SC2086 # the flags are words
    if [ -s "$target/$name.classlist" ] && "$java" -Xshare:dump -XX:SharedClassListFile="$target/$name.classlist" \
            -XX:SharedArchiveFile="$target/$name.jsa" $flags -cp "$cp" >>"$target/$name-cds.log" 2>&1; then
        return 0
    fi
    echo "gpu-detect: CDS archive $name.jsa not built (see $target/$name-cds.log); the launcher runs without it" >&2
    rm -f "$target/$name.jsa"
}

# start NAME: forgets an earlier build's archive and training.
start() {
    rm -f "$target/$1.jsa" "$target/$1.classlist" "$target/$1-cds.log"
}

# JNA's native part, unpacked once here for this machine's architecture: without it JNA unpacks it from its jar
# into a new temporary file at every start that loads NVML (~15 ms). The launchers name this folder in
# jna.boot.library.path.
case $(uname -m) in
    x86_64|amd64) jna_arch=linux-x86-64 ;;
    aarch64|arm64) jna_arch=linux-aarch64 ;;
    *) jna_arch= ;;
esac
jna_jar=$(ls "$target"/lib/jna-[0-9]*.jar 2>/dev/null | head -n 1)
jna_jar=${jna_jar:+$(cd "$(dirname "$jna_jar")" && pwd)/$(basename "$jna_jar")}
rm -rf "$target/jna"
if [ -n "$jna_arch" ] && [ -n "$jna_jar" ]; then
    mkdir -p "$target/jna" && (cd "$target/jna" && "${JAVA_HOME:+$JAVA_HOME/bin/}jar" xf "$jna_jar" \
        "com/sun/jna/$jna_arch/libjnidispatch.so" && mv "com/sun/jna/$jna_arch/libjnidispatch.so" . && rm -rf com) \
        || rm -rf "$target/jna"
fi
jna_path=""
if [ -f "$target/jna/libjnidispatch.so" ]; then
    jna_path="-Djna.boot.library.path=$target/jna"
fi
export GPU_DETECT_JAVA_OPTS="$jna_path"

# A stand-in NVIDIA driver for training, so that the archive holds JNA, its logging and the NVML code that a
# host with NVIDIA's driver runs at every start. Where a C compiler is at hand, the tests' libnvidia-ml.so.1
# (native/src/test/c/fake_nvml.c; one H100), which answers every call detection makes. Otherwise the JDK's
# libjsig.so under that name (it has no dependencies): detection loads JNA and opens it, finds no nvmlInit and
# reports NVML unavailable, which leaves the classes of the calls themselves out of the archive
# (docs/performance.md, "Start-up and footprint tricks", row "command archive trained on the stand-in NVML").
driver="$target/cds-training-driver"
rm -rf "$driver" "$target/cds-training-nvml"
if sh "$here/../../../../native/src/test/c/build-fake-nvml.sh" "$target/cds-training-nvml" >/dev/null 2>&1; then
    driver="$target/cds-training-nvml/current"
else
    java_home=$("$java" -XshowSettings:properties -version 2>&1 | awk '$1 == "java.home" {print $3}')
    mkdir -p "$driver/usr/lib64"
    cp "$java_home/lib/libjsig.so" "$driver/usr/lib64/libnvidia-ml.so.1" 2>/dev/null || rm -rf "$driver"
fi
export GPU_DETECT_DRIVER_ROOT="$driver"

# Akash's table as a command reads it on most starts: by default (no --akash-table), the day's cached copy in the
# cache folder, parsed. A small table written here as that copy, so that training neither waits on the network nor
# depends on ../shared; the classes are the same. Not --akash-table FILE: that path leaves out the default's reader
# (AkashTableReader's refreshing supplier), which every start then loaded from the probes jar, opening it (issue 37).
cache="$target/cds-training-cache"
rm -rf "$cache" && mkdir -p "$cache/gpu-detect"
cat >"$cache/gpu-detect/akash-gpus.json" <<'TABLE'
{"10de": {"name": "nvidia", "devices": {"2330": {"name": "h100", "interface": "SXM5", "memory_size": "80Gi"}}},
 "1002": {"name": "amd", "devices": {"73df": {"name": "rx6700xt", "interface": "PCIe", "memory_size": "12Gi"}}}}
TABLE
export XDG_CACHE_HOME="$cache"
unset GPU_DETECT_AKASH_TABLE

command_flags="$here/command-jvm.flags"
start gpu-detect
# Plain detection on its own class path, as the launcher starts it. These runs cover every output format and
# a recorded bundle (bundle.json, read with jackson-databind): one that fails means detection.classpath lacks
# a jar.
detect() {
    previous=
    for arg; do
        if [ "$previous" = --replay ] && [ ! -d "$arg" ]; then
            # A real recording lives in the workspace's shared set, which a fresh clone may lack: the archive
            # then holds fewer classes (only start-up time is lost).
            echo "cds-archive: $arg not found, not trained on it" >&2
            previous=
            return 0
        fi
        previous=$arg
    done
    previous=
    GPU_DETECT_JAVA_OPTS="$jna_path -Dgpudetect.detectionClassPath=true"
    train gpu-detect "$command_flags" "$detection_cp" "$@"
    status=$?
    GPU_DETECT_JAVA_OPTS=$jna_path
    if [ "$status" -ne 0 ]; then
        echo "gpu-detect: plain detection failed on the jars of $target/detection.classpath (gpu-detect $*;" \
            "see $target/gpu-detect-cds.log): a class it needs is outside agent/detect and its dependencies" >&2
        exit 1
    fi
}
# Live detection on the build machine: the tools it lacks are looked for and reported missing, as on a host.
detect --timeout 2s
# And on a recorded host's sysfs with an NVIDIA card, which the stand-in's H100 is merged with.
detect --timeout 2s --host-root "$cases/sysfs_intel-igpu-beside-nvidia"
detect --replay "$hosts/h100-80gb-hbm3_590.48.01_text-formats"
detect --replay "$hosts/a100-sxm4-40gb_mig-enabled_510.47.03_v11" --output json
detect --replay "$cases/amd-rx6700xt_one-card-seen-by-four-probes" --output json
# rocminfo: the RX 6700 XT case above no longer holds its rocminfo.txt (it names it in shared-files.txt, which only
# the tests assemble), so a host of ../shared trains it: eight MI50s told from MI60s by their compute units.
detect --replay "$hosts/rocminfo_8x-vega20-gfx906_4-numa-epyc-7551p"
# rocm-smi's table form, which no other training run reads.
detect --replay "$hosts/rocm-smi-concise_4x-instinct-mi300x"
# An AMD id that names several products and no revision: VRAM, then the chip family, decide the model.
detect --replay "$hosts/rocm-smi_radeon-rx-6700-xt_rocm-5.7.1_no-revision" --output json
detect --replay "$hosts/lspci_2x-geforce-rtx-4090_lspci-vv" --output yaml
detect --replay "$cases/sysfs_intel-igpu-beside-nvidia" --output table
detect --replay "$cases/nvml-8xa100-mig" --output json
# Our H100 bundle, which README's first command replays (bundle.json, nvml.json, nvidia-smi.xml and a vGPU host's
# sysfs): only the agent's archive had trained on it, and the command read its vGPU check from the probes jar.
detect --replay "$live"
train gpu-detect "$command_flags" "$every_jar_cp" --help
dump gpu-detect "$command_flags" "$detection_cp"

# The agent's training pass has no cluster: a kubeconfig naming a closed port makes the dry run print
# every label as new, which still loads the client, its model and the JSON it writes.
kubeconfig="$target/cds-training.kubeconfig"
cat >"$kubeconfig" <<'KUBECONFIG'
apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "http://127.0.0.1:1"}}]
users: [{name: none, user: {token: none}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
KUBECONFIG
export KUBECONFIG="$kubeconfig"
start gpu-detect-agent
train gpu-detect-agent "$here/agent-jvm.flags" "$every_jar_cp" \
    agent --node cds-training --replay "$live" --once --dry-run --port -1

# Then against a cluster: the test support's MockApiServer (CRUD mode, one Node; agent/testing, on the test
# class path) and the agent passing every 200 ms for 5 s, stopped by SIGTERM as a pod is (the class list is
# complete at a normal exit).
if [ -s "$test_classpath" ] && grep -q gpu-detect-test-support "$test_classpath"; then
    cluster=$target/cds-training-cluster
    rm -rf "$cluster" && mkdir -p "$cluster"
    "$java" -cp "$target/test-classes:$target/classes:$(cat "$test_classpath")" io.gpudetect.testing.MockApiServer \
        "$cluster/kubeconfig" cds-training >"$cluster/mock.log" 2>&1 &
    mock=$!
    n=0
    while [ ! -s "$cluster/kubeconfig" ] && [ "$n" -lt 150 ] && kill -0 "$mock" 2>/dev/null; do
        sleep 0.2
        n=$((n + 1))
    done
    if [ -s "$cluster/kubeconfig" ]; then
        export KUBECONFIG="$cluster/kubeconfig"
        # Live, as a node's agent detects: a recorded host's sysfs with an NVIDIA card and the stand-in driver
        # (JNA, NVML's calls, OSHI's host facts, the steady passes' pulse), which a replay never loads; without
        # them here ~230 classes were read from the jars at every agent's start (docs/performance.md, row
        # "agent archive trained live").
        train_for 5 gpu-detect-agent "$here/agent-jvm.flags" "$every_jar_cp" \
            agent --node cds-training --host-root "$cases/sysfs_intel-igpu-beside-nvidia" --timeout 2s \
            --interval 200ms --startup-jitter 0 --port 0
    fi
    kill "$mock" 2>/dev/null
    wait "$mock" 2>/dev/null
fi
dump gpu-detect-agent "$here/agent-jvm.flags" "$every_jar_cp"
exit 0
