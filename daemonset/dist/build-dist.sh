#!/bin/sh
# Builds the self-contained archive from the jars Maven copied (run by `mvn -Pdist package`):
#   target/dist/gpu-detect/{bin/gpu-detect, lib/*.jar, runtime/ (jlinked), systemd/, licenses/, README.md}
#   target/gpu-detect-VERSION-linux-x86_64.tar.gz (one top folder, gpu-detect-VERSION/)
# The runtime holds only the modules jdeps finds in the jars, plus those reached by reflection or
# service loading, which jdeps cannot see (listed below with why).
#   usage: build-dist.sh TARGET VERSION [ARCH]
# ARCH x86_64 (the default) or aarch64. aarch64 (the release, release/build-release.sh) reuses the x86_64
# stage's jars, launcher, units and licences, and puts in its own runtime (jlinked from Debian 11's arm64
# OpenJDK 17 jmods) and JNA's linux-aarch64 native part: target/dist-aarch64/gpu-detect and
# target/gpu-detect-VERSION-linux-aarch64.tar.gz. Its smoke test runs under qemu-aarch64-static where that is
# installed (with Debian 11's arm64 libc as its root); without it the aarch64 runtime has no CDS archive.
set -eu
target=$(cd "$1" && pwd)
version=$2
arch=${3:-x86_64}
module_dir=$(cd "$(dirname "$0")/.." && pwd)
case $arch in
    x86_64) debian_arch=amd64 ;;
    aarch64) debian_arch=arm64 ;;
    *) echo "build-dist: architecture '$arch' is not x86_64 or aarch64" >&2; exit 1 ;;
esac
# Times in the archive: the commit's (SOURCE_DATE_EPOCH when set), so two builds of one commit give the same
# tarball where the files are the same.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$module_dir" log -1 --format=%ct 2>/dev/null || echo 0)}
# The command line's module: its build wrote the class paths, the class lists and JNA's native part there.
cli="$module_dir/../agent/cli"
if [ "$arch" = x86_64 ]; then
    dist="$target/dist"
else
    dist="$target/dist-$arch"
fi
stage="$dist/gpu-detect"
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
# The JDK for the other architecture comes from the same place, its arm64 package (GPU_DETECT_RUNTIME_JMODS_AARCH64
# to give another).
if [ "$arch" = x86_64 ]; then
    jmods=${GPU_DETECT_RUNTIME_JMODS:-$(sh "$module_dir/dist/debian11-jdk.sh")}
else
    jmods=${GPU_DETECT_RUNTIME_JMODS_AARCH64:-$(sh "$module_dir/dist/debian11-jdk.sh" \
        "${XDG_CACHE_HOME:-$HOME/.cache}/gpu-detect/debian11-jdk" arm64)}
    # The same jars, launcher, units, flags, class lists and licences as the x86_64 stage.
    rm -rf "$dist" && mkdir -p "$dist"
    cp -a "$target/dist/gpu-detect" "$stage"
    rm -rf "$stage/runtime" "$stage/lib/jna"
fi
mods=$("${jdk_bin}jdeps" --ignore-missing-deps --multi-release 17 --print-module-deps \
    --class-path "$stage/lib/*" "$stage"/lib/gpu-detect-*.jar)
mods=$(echo "$mods,$extra_modules" | tr ',' '\n' | grep -vx "$(echo "$left_out_modules" | tr ',' '\n')" \
    | sort -u | paste -sd, -)
rm -rf "$stage/runtime"
# aarch64 on this x86_64 machine: its programs run under qemu-aarch64-static (user-mode emulation, called
# explicitly: binfmt_misc need not be set up) with Debian 11's arm64 libc, libstdc++ and zlib as their root.
qemu=
foreign=
if [ "$arch" != "$(uname -m)" ]; then
    foreign=1
fi
if [ "$arch" = aarch64 ] && [ -n "$foreign" ]; then
    if command -v qemu-aarch64-static >/dev/null; then
        qemu_root="$target/qemu-root-aarch64"
        sh "$module_dir/dist/debian-root.sh" bullseye arm64 "$qemu_root" libc6 libgcc-s1 libstdc++6 zlib1g
        qemu="qemu-aarch64-static -L $qemu_root"
    else
        echo "build-dist: qemu-aarch64-static is not installed (Debian: qemu-user-static): the aarch64 runtime" \
            "gets no class-data-sharing archive and is not run here" >&2
    fi
fi
cds=--generate-cds-archive
strip_debug=--strip-debug
if [ -n "$foreign" ]; then
    # jlink's plugin runs the runtime it made, which this machine cannot without qemu: dumped below instead.
    cds=
    # --strip-debug also strips the native files with this machine's objcopy, which cannot read another
    # architecture's (an error a file, and the files left as they were): the classes' debug attributes only.
    strip_debug=--strip-java-debug-attributes
fi
# --release-info: runtime/release names the architecture (Debian's jmods leave OS_ARCH out), so an archive's
# runtime says what it is for without running it.
# --compress=0: the tarball compresses the module image better than jlink does (10 MB against 14 MB), and
# an uncompressed image needs no inflating at start-up.
# --generate-cds-archive: the runtime's own class-data-sharing archive of the JDK classes; without it every
# start loads them from the module image (about 40 ms more for a one-shot gpu-detect). Its copy for heaps
# over 32 GiB (classes_nocoops.jsa, 10 MB) is never mapped by gpu-detect's small heaps and is left out.
"${jdk_bin}jlink" --module-path "$jmods" --add-modules "$mods" $strip_debug --no-man-pages \
    --no-header-files --compress=0 $cds --release-info "add:OS_NAME=Linux:OS_ARCH=$arch" --output "$stage/runtime"
rm -f "$stage/runtime/lib/server/classes_nocoops.jsa"
echo "$mods" | tr ',' '\n' > "$stage/runtime/MODULES"
# The Debian package the runtime is cut from, for the release's SBOM (release/build-release.sh).
if [ -f "${jmods%/jmods}/VERSION" ]; then
    cp "${jmods%/jmods}/VERSION" "$target/runtime-$arch.debian-version"
fi
# Debian's libjvm.so keeps its symbol table (3.5 MB): only a crash report reads it. A foreign architecture's
# files need its own strip (binutils-aarch64-linux-gnu); without one they ship unstripped.
strip=strip
if [ -n "$foreign" ]; then
    strip=$arch-linux-gnu-strip
fi
if command -v "$strip" >/dev/null; then
    find "$stage/runtime" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec "$strip" --strip-unneeded {} +
else
    echo "build-dist: $strip is not installed: the $arch runtime's programs and libraries ship unstripped" >&2
fi
if [ -z "$cds" ] && [ -n "$qemu" ]; then
    # The JDK's default archive (lib/server/classes.jsa), as jlink's plugin writes it, by the aarch64 JVM itself.
    # shellcheck disable=SC2086 # qemu's words
    $qemu "$stage/runtime/bin/java" -Xshare:dump >"$target/dist-cds-$arch.log" 2>&1 \
        || { cat "$target/dist-cds-$arch.log" >&2; exit 1; }
    rm -f "$target/dist-cds-$arch.log"
fi
if [ "$arch" = x86_64 ]; then
mkdir -p "$stage/bin" "$stage/systemd"
cp "$module_dir/dist/gpu-detect" "$module_dir/dist/gpu-detect-json" "$stage/bin/"
# The JVM flags, plain detection's class path and the trained class lists the launcher makes its start-up
# archives from (bin/gpu-detect). aarch64 has the x86_64 stage's, copied above: the class lists are the
# output of training runs, which need not list the same classes twice, and both archives ship one set.
cp "$cli"/src/build/*-jvm.flags "$cli"/target/detection.classpath "$stage/lib/"
for list in "$cli"/target/gpu-detect.classlist "$cli"/target/gpu-detect-agent.classlist; do
    if [ -f "$list" ]; then cp "$list" "$stage/lib/"; fi
done
fi
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
# JNA's native part for this architecture, unpacked by the agent's build, so JNA need not unpack it per start;
# for aarch64, unpacked here from JNA's jar (com/sun/jna/linux-aarch64/).
if [ "$arch" = x86_64 ] && [ -f "$cli/target/jna/libjnidispatch.so" ]; then
    mkdir -p "$stage/lib/jna" && cp "$cli/target/jna/libjnidispatch.so" "$stage/lib/jna/"
elif [ "$arch" = aarch64 ]; then
    for jna in "$stage"/lib/jna-[0-9]*.jar; do break; done
    rm -rf "$target/jna-$arch" && mkdir -p "$target/jna-$arch" "$stage/lib/jna"
    (cd "$target/jna-$arch" && "${jdk_bin}jar" xf "$jna" com/sun/jna/linux-aarch64/libjnidispatch.so)
    cp "$target/jna-$arch/com/sun/jna/linux-aarch64/libjnidispatch.so" "$stage/lib/jna/"
    rm -rf "$target/jna-$arch"
fi
chmod 755 "$stage/bin/gpu-detect" "$stage/bin/gpu-detect-json"
# The newest glibc symbol version any program or library in the archive asks for: the launcher compares the
# host's glibc with it before starting Java, and says what it needs instead of the loader's message.
# readelf reads every architecture's files (objdump only its own).
find "$stage/runtime" "$stage/lib" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec readelf -W -V {} + \
    | sed -n 's/.*Name: GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -uV | tail -n 1 >"$stage/runtime/GLIBC"

if [ "$arch" = x86_64 ]; then
    cp "$module_dir"/host/*.service "$module_dir"/host/*.timer "$module_dir"/host/*.sysusers "$stage/systemd/"
    cp "$module_dir/host/README.md" "$stage/README.md"
    # The licence texts of what the archive bundles (licenses/README says which is whose; aarch64 copies them).
    # The jars' licence names come from their poms as the cyclonedx plugin resolved them (target/bom.json); an
    # MIT jar without its text gets it with its sources jar's copyright lines (target/licence-sources, pom.xml).
    "${jdk_bin}java" -cp "$stage/lib/*" "$module_dir/dist/Licenses.java" "$stage" /usr/share/common-licenses \
        "$target/bom.json" "$target/licence-sources"
fi

# Smoke test of what ships: every command's classes resolve (picocli builds them all for --version) and an
# agent pass runs through the HTTP client, against a closed port in dry-run mode. A missing jar or module
# fails the build here rather than on a user's host. Run on a copy: the launcher's first run writes the
# start-up archives, which must not ship (they hold the paths of this build).
check="$target/dist-check"
rm -rf "$check" && cp -a "$stage" "$check"
if [ -n "$foreign" ]; then
    if [ -z "$qemu" ]; then
        rm -rf "$check"
        check=
    else
        # The launcher as shipped; its java, on this machine, the aarch64 one under qemu.
        mv "$check/runtime/bin/java" "$check/runtime/bin/java.$arch"
        printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$qemu" "$check/runtime/bin/java.$arch" >"$check/runtime/bin/java"
        chmod 755 "$check/runtime/bin/java"
    fi
fi
if [ -n "$check" ]; then
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
fi

# Reproducible where the files are: entries sorted, owned by 0:0 numerically, every time the commit's (GNU
# format: no atime or ctime headers), and gzip without a name or time of its own.
archive="$target/gpu-detect-$version-linux-$arch.tar.gz"
tar -C "$dist" --format=gnu --owner=0 --group=0 --numeric-owner --sort=name --mtime="@$epoch" \
    --transform "s,^gpu-detect,gpu-detect-$version," -cf - gpu-detect | gzip -9 -n >"$archive"
echo "gpu-detect: wrote $archive (modules: $mods; glibc $(cat "$stage/runtime/GLIBC") or newer)"
