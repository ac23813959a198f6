# Steps of daemonset/Dockerfile that both image builds take the same way, sourced (POSIX sh functions) by
# release/build-image-index.sh (the release's images) and src/test/image/build-image.sh (ImageTest's image), so
# that the image a test runs and the image a provider pulls are made by one recipe.

# image_skeleton ROOT TRIPLET: what gcr.io/distroless/cc-debian12:nonroot has besides its packages: merged /usr
# as Debian 12's, /etc/passwd and /etc/group (root, nobody, nonroot 65532), nsswitch.conf, CA certificates,
# /home/nonroot (700, nonroot's) and /tmp (1777).
image_skeleton() {
    mkdir -p "$1/usr/bin" "$1/usr/sbin" "$1/usr/lib/$2" "$1/usr/lib64" "$1/etc/ssl/certs" "$1/home/nonroot" "$1/tmp"
    for dir in bin sbin lib lib64; do
        [ -e "$1/$dir" ] || ln -s "usr/$dir" "$1/$dir"
    done
    printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
        'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$1/etc/passwd"
    printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'tty:x:5:' 'staff:x:50:' 'nonroot:x:65532:' >"$1/etc/group"
    printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' >"$1/etc/nsswitch.conf"
    if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
        cp /etc/ssl/certs/ca-certificates.crt "$1/etc/ssl/certs/"
    fi
    chown 65532:65532 "$1/home/nonroot" && chmod 700 "$1/home/nonroot"
    chmod 1777 "$1/tmp"
}

# image_cds_dump CONTAINER FLAGS [RUNNER]: the Dockerfile's archive stage, the class-data-sharing dump of the
# agent's class list, run in the image's own root (buildah run gives it /proc and /dev, which the loader's
# $ORIGIN and the JVM read); RUNNER is qemu-aarch64-static's path inside the root for another architecture.
# Output goes to stdout and stderr; the caller says what a failure means.
image_cds_dump() {
    # shellcheck disable=SC2086 # the runner and the flags are words
    buildah run --isolation chroot --user 0:0 "$1" -- ${3:-} /opt/gpu-detect/runtime/bin/java $2 -Xshare:dump \
        -XX:SharedClassListFile=/opt/gpu-detect/lib/gpu-detect-agent.classlist \
        -XX:SharedArchiveFile=/opt/gpu-detect/lib/gpu-detect-agent.jsa -cp "/opt/gpu-detect/lib/*"
}

# image_base_config CONTAINER [buildah config options...]: the distroless base's configuration (PATH,
# SSL_CERT_FILE, working directory), with the caller's options (an architecture).
image_base_config() {
    image_container=$1
    shift
    buildah config "$@" --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt --workingdir /home/nonroot "$image_container"
}
