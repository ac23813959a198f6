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

# jdk.crypto.ec: TLS to the API server negotiates EC ciphers through a security provider.
# jdk.zipfs: none; jdk.localedata: none (messages are English; formats use Locale.ROOT).
extra_modules="jdk.crypto.ec"

mods=$("${jdk_bin}jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps \
    --class-path "$stage/lib/*" "$stage"/lib/gpu-detect-agent-*.jar)
rm -rf "$stage/runtime"
"${jdk_bin}jlink" --add-modules "$mods,$extra_modules" --strip-debug --no-man-pages --no-header-files \
    --compress=2 --output "$stage/runtime"
echo "$mods,$extra_modules" | tr ',' '\n' > "$stage/runtime/MODULES"

mkdir -p "$stage/bin" "$stage/systemd"
cp "$module_dir/dist/gpu-detect" "$module_dir/dist/gpu-detect-json" "$stage/bin/"
chmod 755 "$stage/bin/gpu-detect" "$stage/bin/gpu-detect-json"
cp "$module_dir"/host/*.service "$module_dir"/host/*.timer "$stage/systemd/"
cp "$module_dir/host/README.md" "$stage/README.md"

archive="$target/gpu-detect-$version-linux-x86_64.tar.gz"
tar -C "$target/dist" --owner=0 --group=0 --sort=name --transform "s,^gpu-detect,gpu-detect-$version," \
    -czf "$archive" gpu-detect
echo "gpu-detect: wrote $archive (modules: $mods,$extra_modules)"
