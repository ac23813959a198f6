#!/bin/sh
# The release's image: an OCI image index holding linux/amd64 and linux/arm64 images, each built as
# daemonset/Dockerfile says, without a daemon or a registry (buildah, as root), into one OCI archive:
#   build-image-index.sh TARGET VERSION OUT TOOLS_CLASSPATH
# OUT (target/release/gpu-detect-VERSION-image.oci.tar) is loadable with `podman load` and pushable with
# `skopeo copy --all oci-archive:OUT docker://REGISTRY/gpu-detect:VERSION`. Also writes
# TARGET/image-packages.tsv, the Debian packages in the images, for the SBOM.
# Each of the Dockerfile's stages, per architecture:
#   build: the Maven build that ran before this (its dist: target/dist/gpu-detect for amd64,
#     target/dist-aarch64/gpu-detect for arm64, made by build-dist.sh).
#   archive: the class-data-sharing dump, the same command, run in the image's own root (buildah run; for arm64 with
#     qemu-aarch64-static copied in for the dump alone, where it is installed: without it the arm64 image has no
#     lib/gpu-detect-agent.jsa, which the JVM treats as -Xshare:auto treats any missing archive).
#   zlib (debian:12-slim): Debian 12's zlib1g for the architecture.
#   gcr.io/distroless/cc-debian12:nonroot: a root made from scratch of the Debian 12 packages distroless makes
#     that image of (libc6, libssl3, libgcc-s1, libstdc++6, libgomp1, gcc-12-base) for the architecture,
#     fetched from Debian (dist/debian-root.sh), with their copyright files (the licences travel with the
#     image); its /etc/passwd, /etc/group, nsswitch.conf, /home/nonroot, /tmp, CA certificates, PATH,
#     SSL_CERT_FILE and working directory, as src/test/image/build-image.sh makes them for ImageTest.
# Image times are the commit's (SOURCE_DATE_EPOCH when set).
set -eu
target=$(cd "$1" && pwd)
version=$2
out=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
tools=$4
module_dir=$(cd "$(dirname "$0")/.." && pwd)
jdk_bin=${JAVA_HOME:+$JAVA_HOME/bin/}
. "$module_dir/dist/image-steps.sh"
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$module_dir" log -1 --format=%ct 2>/dev/null || echo 0)}
if [ "$(id -u)" != 0 ]; then
    echo "build-image-index: needs root (buildah's vfs storage, chroot)" >&2
    exit 1
fi
for tool in buildah; do
    command -v "$tool" >/dev/null || { echo "build-image-index: $tool is not installed (Debian: buildah)" >&2; exit 1; }
done
# buildah's storage and settings of its own under target/ (vfs: no overlay or fuse needed), as ImageTest's.
work="$target/release-image"
rm -rf "$work" && mkdir -p "$work/storage" "$work/run"
export CONTAINERS_STORAGE_CONF="$work/storage.conf" CONTAINERS_CONF="$work/containers.conf"
printf '[storage]\ndriver = "vfs"\ngraphroot = "%s"\nrunroot = "%s"\n' "$work/storage" "$work/run" >"$CONTAINERS_STORAGE_CONF"
printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' \
    >"$CONTAINERS_CONF"
recipe=$("${jdk_bin}java" -cp "$tools" "$module_dir/release/Release.java" recipe "$module_dir/Dockerfile")
name=ghcr.io/gpu-detect/gpu-detect:$version
list=localhost/gpu-detect-release-index:$version
buildah manifest rm "$list" >/dev/null 2>&1 || true
buildah manifest create "$list" >/dev/null
: >"$target/image-packages.tsv"
flags=$(cat "$target/dist/gpu-detect/lib/agent-jvm.flags")
for arch in amd64 arm64; do
    case $arch in
        amd64) dist="$target/dist/gpu-detect" triplet=x86_64-linux-gnu qemu= ;;
        arm64) dist="$target/dist-aarch64/gpu-detect" triplet=aarch64-linux-gnu qemu=qemu-aarch64-static ;;
    esac
    base="$work/base-$arch"
    sh "$module_dir/dist/debian-root.sh" bookworm "$arch" "$base" libc6 libssl3 libgcc-s1 libstdc++6 libgomp1 \
        gcc-12-base zlib1g
    while read -r package package_version package_arch; do
        where="the base of the linux/$package_arch image"
        if [ "$package" = zlib1g ]; then
            where="libz.so.1 of the linux/$package_arch image (the Dockerfile's zlib stage)"
        fi
        printf '%s\t%s\t%s\t12\t%s\t\n' "$package" "$package_version" "$package_arch" "$where (its licence: /usr/share/doc/$package/copyright there)"
    done <"$base.packages" >>"$target/image-packages.tsv"

    ctr=$(buildah from --arch "$arch" scratch)
    root=$(buildah mount "$ctr")
    # The base, merged /usr as Debian 12's: the packages' /lib and /lib64 land in /usr through the links.
    image_skeleton "$root" "$triplet"
    # zlib1g is the zlib stage's, copied below as the Dockerfile does; docs other than copyright left out.
    (cd "$base" && tar --exclude=./usr/share/man --exclude=./usr/share/lintian --exclude=./usr/share/locale \
        --exclude=./usr/share/doc/zlib1g --exclude="./usr/lib/$triplet/libz.so*" --exclude=./lib/$triplet/libz.so* \
        --exclude='./usr/share/doc/*/changelog*' --exclude='./usr/share/doc/*/NEWS*' --exclude='./usr/share/doc/*/README*' \
        -cf - .) | tar -C "$root" --keep-directory-symlink -xf -
    # COPY --from=zlib /libz.so.1 /usr/lib/libz.so.1 (with zlib's copyright: the licences travel)
    cp "$(readlink -f "$base/lib/$triplet/libz.so.1" 2>/dev/null || readlink -f "$base/usr/lib/$triplet/libz.so.1")" \
        "$root/usr/lib/libz.so.1"
    mkdir -p "$root/usr/share/doc/zlib1g" && cp "$base/usr/share/doc/zlib1g/copyright" "$root/usr/share/doc/zlib1g/"
    # COPY --from=archive /opt/gpu-detect /opt/gpu-detect, after the archive stage's dump.
    mkdir -p "$root/opt"
    cp -a "$dist" "$root/opt/gpu-detect"
    chown -R 0:0 "$root/opt/gpu-detect"
    # Every file at the commit's time before the dump: the dump records each jar's time and size and maps
    # nothing when they differ, and the commit below (--timestamp) sets every file's time to this one.
    find "$root/opt/gpu-detect" -exec touch -h -d "@$epoch" {} +
    runner=
    if [ -n "$qemu" ] && [ "$(uname -m)" != aarch64 ]; then
        if command -v "$qemu" >/dev/null; then
            cp "$(command -v "$qemu")" "$root/qemu-static"
            runner=/qemu-static
        else
            runner=none
        fi
    fi
    if [ "$runner" != none ]; then
        image_cds_dump "$ctr" "$flags" "${runner:-}" \
            >"$work/dump-$arch.log" 2>&1 \
            || { echo "build-image-index: the $arch class-data-sharing dump failed (see $work/dump-$arch.log);" \
                     "the image has no lib/gpu-detect-agent.jsa" >&2
                 rm -f "$root/opt/gpu-detect/lib/gpu-detect-agent.jsa"; }
    else
        echo "build-image-index: no $qemu: the $arch image has no lib/gpu-detect-agent.jsa" >&2
    fi
    rm -f "$root/qemu-static"
    buildah umount "$ctr" >/dev/null
    image_base_config "$ctr" --arch "$arch" --os linux
    set --
    while IFS= read -r line; do
        set -- "$@" "$line"
    done <<RECIPE
$recipe
RECIPE
    buildah config "$@" "$ctr"
    buildah commit --quiet --rm --timestamp "$epoch" "$ctr" "localhost/gpu-detect-release:$version-$arch" >/dev/null
    buildah manifest add --arch "$arch" --os linux "$list" "containers-storage:localhost/gpu-detect-release:$version-$arch" >/dev/null
done
rm -f "$out"
buildah manifest push --quiet --all --format oci "$list" "oci-archive:$out:$name"
echo "gpu-detect: wrote $out (linux/amd64, linux/arm64; $name)"
