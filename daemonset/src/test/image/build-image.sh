#!/bin/sh
# Builds the agent's image without a registry, from what `mvn -Pdist package` made, for ImageTest:
#   build-image.sh DIST TAG [buildah config options...]
# DIST is target/dist/gpu-detect; the options after TAG are the Dockerfile's last stage (USER, ENTRYPOINT,
# CMD, ENV), which ImageTest reads from daemonset/Dockerfile and passes here, so this image follows the recipe.
# Storage and configuration come from CONTAINERS_STORAGE_CONF and CONTAINERS_CONF (ImageTest writes them
# under target/).
#
# What stands in for each stage of daemon/Dockerfile:
#   1. build: the Maven build that ran before this (the same -Pdist profile).
#   2. archive: the class-data-sharing dump, the same command, run in the image's own root (buildah run).
#   3. gcr.io/distroless/cc-debian12:nonroot: a root made from scratch with what that base gives a program:
#      glibc, libgcc_s, libstdc++ and zlib from this Debian 12 host (the libraries ldd finds for the runtime and
#      JNA, the ones distroless "cc" holds), /etc/passwd and /etc/group with root, nobody and nonroot (65532),
#      /home/nonroot as the working directory, /tmp, CA certificates, and the base's PATH and SSL_CERT_FILE.
set -eu
dist=${1:?usage: build-image.sh DIST TAG [buildah config options...]}
tag=${2:?usage: build-image.sh DIST TAG [buildah config options...]}
shift 2

ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
root=$(buildah mount "$ctr")

# The base: shared libraries the runtime and JNA's native part need, each at the path ldd found it, and the
# dynamic loader the programs name. libgcc_s is also loaded by glibc itself when a thread exits.
mkdir -p "$root/lib64" "$root/lib/x86_64-linux-gnu" "$root/etc/ssl/certs" "$root/home/nonroot" "$root/tmp"
libs=$(find "$dist/runtime" "$dist/lib/jna" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec ldd {} + 2>/dev/null \
    | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p' | grep -v "^$dist" | sort -u)
for lib in $libs /lib/x86_64-linux-gnu/libgcc_s.so.1 /lib/x86_64-linux-gnu/libstdc++.so.6; do
    cp -L "$lib" "$root/lib/x86_64-linux-gnu/$(basename "$lib")"
done
cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
    'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$root/etc/passwd"
printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'tty:x:5:' 'staff:x:50:' 'nonroot:x:65532:' >"$root/etc/group"
printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' >"$root/etc/nsswitch.conf"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi
chown 65532:65532 "$root/home/nonroot" && chmod 700 "$root/home/nonroot"
chmod 1777 "$root/tmp"

# COPY --from=archive /opt/gpu-detect /opt/gpu-detect
mkdir -p "$root/opt"
cp -a "$dist" "$root/opt/gpu-detect"
chown -R 0:0 "$root/opt/gpu-detect"
buildah umount "$ctr" >/dev/null

# The archive stage's dump, as the Dockerfile runs it (the flags read here: the image has no shell).
flags=$(cat "$dist/lib/agent-jvm.flags")
# shellcheck disable=SC2086
buildah run --isolation chroot --user 0:0 "$ctr" -- /opt/gpu-detect/runtime/bin/java $flags -Xshare:dump \
    -XX:SharedClassListFile=/opt/gpu-detect/lib/gpu-detect-agent.classlist \
    -XX:SharedArchiveFile=/opt/gpu-detect/lib/gpu-detect-agent.jsa -cp "/opt/gpu-detect/lib/*" >/dev/null 2>&1 \
    || { echo "build-image.sh: the class-data-sharing dump failed; the image has no lib/gpu-detect-agent.jsa" >&2
         buildah run --isolation chroot --user 0:0 "$ctr" -- /opt/gpu-detect/runtime/bin/java -version >/dev/null 2>&1 || true
         root=$(buildah mount "$ctr"); rm -f "$root/opt/gpu-detect/lib/gpu-detect-agent.jsa"; buildah umount "$ctr" >/dev/null; }

# The base image's configuration, then the Dockerfile's.
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt --workingdir /home/nonroot "$ctr"
buildah config "$@" "$ctr"
buildah commit --quiet --rm "$ctr" "$tag" >/dev/null
trap - EXIT
