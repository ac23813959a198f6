#!/bin/sh
# Builds the agent's image without a registry, from what `mvn -Pdist package` made, for ImageTest:
#   build-image.sh DIST TAG [buildah config options...]
# DIST is target/dist/gpu-detect; the options after TAG are the Dockerfile's last stage (USER, ENTRYPOINT,
# CMD, ENV), which ImageTest reads from daemonset/Dockerfile and passes here, so this image follows the recipe.
# Storage and configuration come from CONTAINERS_STORAGE_CONF and CONTAINERS_CONF (ImageTest writes them
# under target/).
#
# What stands in for each stage of daemonset/Dockerfile (ImageTest checks that the Dockerfile still has these):
#   build: the Maven build that ran before this (the same -Pdist profile).
#   archive: the class-data-sharing dump, the same command, run in the image's own root (buildah run).
#   zlib (debian:12-slim): this Debian 12 host's zlib1g, the same package.
#   gcr.io/distroless/cc-debian12:nonroot: a root made from scratch of the Debian 12 packages distroless makes
#   that image of (its base/config.bzl and cc/config.bzl: libc6, libssl3, libgcc-s1, libstdc++6, libgomp1,
#   gcc-12-base), taken from this Debian 12 host, nothing more (so a library the base lacks is missing here
#   too); its /etc/passwd and /etc/group (root, nobody, nonroot 65532), /home/nonroot, /tmp (1777), CA
#   certificates, and its PATH, SSL_CERT_FILE and working directory.
set -eu
dist=${1:?usage: build-image.sh DIST TAG [buildah config options...]}
tag=${2:?usage: build-image.sh DIST TAG [buildah config options...]}
shift 2
. "$(cd "$(dirname "$0")/../../.." && pwd)/dist/image-steps.sh"

ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
root=$(buildah mount "$ctr")

# The base: the distroless packages, with this host's merged /usr, then the rest of distroless' root.
image_skeleton "$root" x86_64-linux-gnu
dpkg -L libc6 libssl3 libgcc-s1 libstdc++6 libgomp1 gcc-12-base | while read -r file; do
    case "$file" in /usr/share/doc/* | /usr/share/man/* | /usr/share/lintian/* | /usr/share/locale/*) continue ;; esac
    if [ -f "$file" ] || [ -L "$file" ] && [ ! -d "$file" ]; then
        mkdir -p "$root$(dirname "$file")" && cp -a "$file" "$root$file"
    fi
done

# COPY --from=zlib /libz.so.1 /usr/lib/libz.so.1 (the zlib stage takes it out of its multiarch folder)
cp "$(readlink -f /usr/lib/x86_64-linux-gnu/libz.so.1)" "$root/usr/lib/libz.so.1"

# COPY --from=archive /opt/gpu-detect /opt/gpu-detect
mkdir -p "$root/opt"
cp -a "$dist" "$root/opt/gpu-detect"
chown -R 0:0 "$root/opt/gpu-detect"
buildah umount "$ctr" >/dev/null

# The archive stage's dump, as the Dockerfile runs it (the flags read here: the image has no shell).
flags=$(cat "$dist/lib/agent-jvm.flags")
image_cds_dump "$ctr" "$flags" >/dev/null 2>&1 \
    || { echo "build-image.sh: the class-data-sharing dump failed; the image has no lib/gpu-detect-agent.jsa" >&2
         root=$(buildah mount "$ctr"); rm -f "$root/opt/gpu-detect/lib/gpu-detect-agent.jsa"; buildah umount "$ctr" >/dev/null; }

# The base image's configuration, then the Dockerfile's.
image_base_config "$ctr"
buildah config "$@" "$ctr"
buildah commit --quiet --rm "$ctr" "$tag" >/dev/null
trap - EXIT
