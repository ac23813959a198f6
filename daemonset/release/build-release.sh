#!/bin/sh
# The release: run by `mvn -B -ntp -Prelease -DskipTests package` (daemonset/pom.xml, profile release) after
# build-dist.sh made the x86_64 host archive. Writes RELEASE_DIR (target/release/ at the repository root):
#   gpu-detect-VERSION-linux-x86_64.tar.gz, gpu-detect-VERSION-linux-aarch64.tar.gz   host archives
#   gpu-detect-VERSION-image.oci.tar    OCI image index, linux/amd64 and linux/arm64 (build-image-index.sh)
#   gpu-detect-VERSION.tgz              the Helm chart, version and appVersion VERSION (Release.java chart)
#   gpu-detect-VERSION.cdx.json         CycloneDX SBOM: the jars, both OpenJDK runtimes, the image's Debian
#                                       packages (Release.java sbom)
#   SHA256SUMS                          over all of them (sha256sum -c SHA256SUMS)
#   usage: build-release.sh TARGET VERSION RELEASE_DIR
set -eu
target=$(cd "$1" && pwd)
version=$2
mkdir -p "$3" && release=$(cd "$3" && pwd)
module_dir=$(cd "$(dirname "$0")/.." && pwd)
jdk_bin=${JAVA_HOME:+$JAVA_HOME/bin/}
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$module_dir" log -1 --format=%ct 2>/dev/null || echo 0)}
date=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
start=$(date +%s)
rm -rf "$release" && mkdir -p "$release"
tools=$(cat "$target/release-tool.classpath"):$target/dist/gpu-detect/lib/*

cp "$target/gpu-detect-$version-linux-x86_64.tar.gz" "$release/"
sh "$module_dir/dist/build-dist.sh" "$target" "$version" aarch64
cp "$target/gpu-detect-$version-linux-aarch64.tar.gz" "$release/"

"${jdk_bin}java" -cp "$tools" "$module_dir/release/Release.java" chart "$module_dir/chart/gpu-detect" \
    "$target/release-chart" "$release" "$version"

rm -f "$target/image-packages.tsv"
sh "$module_dir/release/build-image-index.sh" "$target" "$version" "$release/gpu-detect-$version-image.oci.tar" "$tools"

components="$target/release-components.tsv"
: >"$components"
# The OpenJDK each archive's runtime is cut from (Debian 11's; its VERSION file, debian11-jdk.sh). Its licence
# texts are in the runtime's legal/ folder.
for pair in x86_64:dist aarch64:dist-aarch64; do
    arch=${pair%%:*}
    jdk_version=$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$target/${pair#*:}/gpu-detect/runtime/release")
    debian_arch=amd64
    [ "$arch" = aarch64 ] && debian_arch=arm64
    package_version=$(cat "$target/runtime-$arch.debian-version" 2>/dev/null || echo "$jdk_version")
    printf 'openjdk-17-jdk-headless\t%s\t%s\t11\t%s\t%s\n' "$package_version" "$debian_arch" \
        "the jlinked runtime (runtime/) of gpu-detect-$version-linux-$arch.tar.gz and of the $debian_arch image (OpenJDK $jdk_version)" \
        "GPL-2.0-only WITH Classpath-exception-2.0" >>"$components"
done
if [ -f "$target/image-packages.tsv" ]; then
    cat "$target/image-packages.tsv" >>"$components"
fi
"${jdk_bin}java" -cp "$tools" "$module_dir/release/Release.java" sbom "$target/bom.json" \
    "$release/gpu-detect-$version.cdx.json" "$version" "$date" "$components"

(cd "$release" && sha256sum gpu-detect-* >SHA256SUMS)
echo "gpu-detect: wrote the release $version to $release in $(($(date +%s) - start)) s:"
(cd "$release" && ls -l)
