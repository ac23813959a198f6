#!/bin/sh
# Builds the self-contained archive from the jars Maven copied (run by `mvn -Pdist package`):
#   target/dist/gpu-detect/{bin/gpu-detect, lib/*.jar, runtime/ (jlinked), systemd/, README.md}
#   target/gpu-detect-VERSION-linux-x86_64.tar.gz (one top folder, gpu-detect-VERSION/)
# The runtime holds only the modules jdeps finds in the jars, plus those reached by reflection or
# service loading, which jdeps cannot see (listed below with why).
set -eu
target=$1
version=$2
module_dir=$(cd "$(dirname "$0")/.." && pwd)
# The command line's module: its build wrote the class paths, the class lists and JNA's native part there.
cli="$module_dir/../agent/cli"
stage="$target/dist/gpu-detect"
jdk_bin=${JAVA_HOME:+$JAVA_HOME/bin/}

# java.net.http: fabric8 finds its JDK HTTP client (kubernetes-httpclient-jdk) by service loading.
# jdk.crypto.ec: TLS to the API server negotiates EC ciphers through a security provider.
# jdk.zipfs: none; jdk.localedata: none (messages are English; formats use Locale.ROOT).
extra_modules="java.net.http,jdk.crypto.ec"
# java.desktop (AWT, java.beans; 12 MB): jdeps finds it behind code gpu-detect never runs: JNA's AWT
# helpers, OSHI's Windows and macOS drivers, Jackson's java.beans annotations (looked up by name, absent
# is fine) and SnakeYAML's bean introspection (fabric8 reads YAML as trees). The smoke test below runs
# every command's set-up and an agent pass without it.
left_out_modules="java.desktop"

# The runtime is cut from Debian 11's OpenJDK 17 (glibc 2.31; see debian11-jdk.sh), not from the JDK
# running the build: the archive must start on the oldest hosts it is for.
jmods=${GPU_DETECT_RUNTIME_JMODS:-$(sh "$module_dir/dist/debian11-jdk.sh")}
mods=$("${jdk_bin}jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps \
    --class-path "$stage/lib/*" "$stage"/lib/gpu-detect-*.jar)
mods=$(echo "$mods,$extra_modules" | tr ',' '\n' | grep -vx "$(echo "$left_out_modules" | tr ',' '\n')" \
    | sort -u | paste -sd, -)
rm -rf "$stage/runtime"
# --compress=0: the tarball compresses the module image better than jlink does (10 MB against 14 MB), and
# an uncompressed image needs no inflating at start-up.
# --generate-cds-archive: the runtime's own class-data-sharing archive of the JDK classes; without it every
# start loads them from the module image (about 40 ms more for a one-shot gpu-detect). Its copy for heaps
# over 32 GiB (classes_nocoops.jsa, 10 MB) is never mapped by gpu-detect's small heaps and is left out.
"${jdk_bin}jlink" --module-path "$jmods" --add-modules "$mods" --strip-debug --no-man-pages \
    --no-header-files --compress=0 --generate-cds-archive --output "$stage/runtime"
rm -f "$stage/runtime/lib/server/classes_nocoops.jsa"
echo "$mods" | tr ',' '\n' > "$stage/runtime/MODULES"
# Debian's libjvm.so keeps its symbol table (3.5 MB): only a crash report reads it.
find "$stage/runtime" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec strip --strip-unneeded {} +
mkdir -p "$stage/bin" "$stage/systemd"
cp "$module_dir/dist/gpu-detect" "$module_dir/dist/gpu-detect-json" "$stage/bin/"
# The JVM flags, plain detection's class path and the trained class lists the launcher makes its start-up
# archives from (bin/gpu-detect).
cp "$cli"/src/build/*-jvm.flags "$cli"/target/detection.classpath "$stage/lib/"
for list in "$cli"/target/gpu-detect.classlist "$cli"/target/gpu-detect-agent.classlist; do
    if [ -f "$list" ]; then cp "$list" "$stage/lib/"; fi
done
# Nothing the agent loads may be missing: lib/ must hold every jar of the agent's runtime dependency set, and
# every class its training runs loaded on Maven's class path (the class lists just copied: detections and an
# agent against fabric8's mock API server) must be in lib/ or the runtime. The first archive left 16 fabric8
# model jars out "because the client never loads them"; it loads one at the informer's first list. The JDK
# modules below are left out although a training run touched them, each because the JDK treats its absence
# as normal: java.desktop (above), jdk.localedata (formats use Locale.ROOT), jdk.net (extended socket
# options, looked up by name), and the modules of the security providers that the JDK's java.security lists
# (SunJGSS, SunSASL, XMLDSig, SunPCSC, JdkLDAP, JdkSASL, SunPKCS11): a lookup of an algorithm tries them in
# turn and skips those absent; TLS to the API server needs only java.base's and jdk.crypto.ec's.
absent_modules="$left_out_modules,jdk.localedata,jdk.net,java.security.jgss,java.security.sasl,java.xml.crypto"
absent_modules="$absent_modules,java.smartcardio,java.naming,jdk.security.jgss,jdk.crypto.cryptoki"
"${jdk_bin}java" "$module_dir/dist/CheckLib.java" "$stage" "$cli/target/runtime.classpath" \
    "$absent_modules"
# JNA's native part for this architecture, unpacked by the agent's build, so JNA need not unpack it per start.
if [ -f "$cli/target/jna/libjnidispatch.so" ]; then
    mkdir -p "$stage/lib/jna" && cp "$cli/target/jna/libjnidispatch.so" "$stage/lib/jna/"
fi
chmod 755 "$stage/bin/gpu-detect" "$stage/bin/gpu-detect-json"
# The newest glibc symbol version any program or library in the archive asks for: the launcher compares the
# host's glibc with it before starting Java, and says what it needs instead of the loader's message.
find "$stage/runtime" "$stage/lib" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec objdump -T {} + \
    | sed -n 's/.*GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -uV | tail -n 1 >"$stage/runtime/GLIBC"

cp "$module_dir"/host/*.service "$module_dir"/host/*.timer "$module_dir"/host/*.sysusers "$stage/systemd/"
cp "$module_dir/host/README.md" "$stage/README.md"

# Smoke test of what ships: every command's classes resolve (picocli builds them all for --version) and an
# agent pass runs through the HTTP client, against a closed port in dry-run mode. A missing jar or module
# fails the build here rather than on a user's host. Run on a copy: the launcher's first run writes the
# start-up archives, which must not ship (they hold the paths of this build).
check="$target/dist-check"
rm -rf "$check" && cp -a "$stage" "$check"
log="$target/dist-check.log"
"$check/bin/gpu-detect" --version >/dev/null 2>"$log" || { cat "$log" >&2; exit 1; }
# Plain detection on its own class path (lib/detection.classpath), a recorded bundle read with jackson-databind,
# fetching Akash's table from a closed port: the runtime's HTTP client runs, fails and is reported, without the
# network and without touching the builder's cache.
XDG_CACHE_HOME="$check/cache" "$check/bin/gpu-detect" --replay "$module_dir/../test-fixtures/cases/nvml-8xa100-mig" \
    --output json --akash-table http://127.0.0.1:1/ >/dev/null 2>"$log" || { cat "$log" >&2; exit 1; }
kubeconfig="$target/dist-check.kubeconfig"
printf '%s\n' 'apiVersion: v1' 'kind: Config' \
    'clusters: [{name: none, cluster: {server: "http://127.0.0.1:1"}}]' \
    'users: [{name: none, user: {token: none}}]' \
    'contexts: [{name: none, context: {cluster: none, user: none}}]' 'current-context: none' >"$kubeconfig"
KUBECONFIG="$kubeconfig" GPU_DETECT_AKASH_TABLE=none "$check/bin/gpu-detect" agent --node dist-check --once --dry-run --port -1 \
    --replay "$module_dir/../test-fixtures/live-bundles/h100-sxm5-80gb_580.159.04_vm" >/dev/null 2>"$log" \
    || { cat "$log" >&2; exit 1; }
rm -rf "$check" "$kubeconfig" "$log"

archive="$target/gpu-detect-$version-linux-x86_64.tar.gz"
tar -C "$target/dist" --owner=0 --group=0 --sort=name --transform "s,^gpu-detect,gpu-detect-$version," \
    -czf "$archive" gpu-detect
echo "gpu-detect: wrote $archive (modules: $mods; glibc $(cat "$stage/runtime/GLIBC") or newer)"
