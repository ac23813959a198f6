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
stage="$target/dist/gpu-detect"
jdk_bin=${JAVA_HOME:+$JAVA_HOME/bin/}

# java.net.http: fabric8 finds its JDK HTTP client (kubernetes-httpclient-jdk) by service loading.
# jdk.crypto.ec: TLS to the API server negotiates EC ciphers through a security provider.
# jdk.zipfs: none; jdk.localedata: none (messages are English; formats use Locale.ROOT).
extra_modules="java.net.http,jdk.crypto.ec"

mods=$("${jdk_bin}jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps \
    --class-path "$stage/lib/*" "$stage"/lib/gpu-detect-agent-*.jar)
rm -rf "$stage/runtime"
# --generate-cds-archive: the runtime's own class-data-sharing archive of the JDK classes; without it every
# start loads them from the compressed module image (about 40 ms more for a one-shot gpu-detect).
"${jdk_bin}jlink" --add-modules "$mods,$extra_modules" --strip-debug --no-man-pages --no-header-files \
    --compress=2 --generate-cds-archive --output "$stage/runtime"
echo "$mods,$extra_modules" | tr ',' '\n' > "$stage/runtime/MODULES"

mkdir -p "$stage/bin" "$stage/systemd"
cp "$module_dir/dist/gpu-detect" "$module_dir/dist/gpu-detect-json" "$stage/bin/"
# The JVM flags and the trained class lists the launcher makes its start-up archives from (bin/gpu-detect).
cp "$module_dir"/../agent/src/build/*-jvm.flags "$stage/lib/"
for list in "$module_dir"/../agent/target/gpu-detect.classlist "$module_dir"/../agent/target/gpu-detect-agent.classlist; do
    if [ -f "$list" ]; then cp "$list" "$stage/lib/"; fi
done
# JNA's native part for this architecture, unpacked by the agent's build, so JNA need not unpack it per start.
if [ -f "$module_dir/../agent/target/jna/libjnidispatch.so" ]; then
    mkdir -p "$stage/lib/jna" && cp "$module_dir/../agent/target/jna/libjnidispatch.so" "$stage/lib/jna/"
fi
chmod 755 "$stage/bin/gpu-detect" "$stage/bin/gpu-detect-json"
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
kubeconfig="$target/dist-check.kubeconfig"
printf '%s\n' 'apiVersion: v1' 'kind: Config' \
    'clusters: [{name: none, cluster: {server: "http://127.0.0.1:1"}}]' \
    'users: [{name: none, user: {token: none}}]' \
    'contexts: [{name: none, context: {cluster: none, user: none}}]' 'current-context: none' >"$kubeconfig"
KUBECONFIG="$kubeconfig" "$check/bin/gpu-detect" agent --node dist-check --once --dry-run --port -1 \
    --replay "$module_dir/../test-fixtures/hosts/tesla-t4_515.105.01_v11" >/dev/null 2>"$log" \
    || { cat "$log" >&2; exit 1; }
rm -rf "$check" "$kubeconfig" "$log"

archive="$target/gpu-detect-$version-linux-x86_64.tar.gz"
tar -C "$target/dist" --owner=0 --group=0 --sort=name --transform "s,^gpu-detect,gpu-detect-$version," \
    -czf "$archive" gpu-detect
echo "gpu-detect: wrote $archive (modules: $mods,$extra_modules)"
