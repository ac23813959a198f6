#!/bin/sh
# Compiles fake_nvml.c twice into OUT/{current,old}/usr/lib64/libnvidia-ml.so.1: a driver-root layout,
# so tests point --driver-root (or the loader) at OUT/current or OUT/old. Fails loudly without gcc:
# the NVML tests need a real shared library to load.
set -eu
out=${1:?usage: build-fake-nvml.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "build-fake-nvml.sh: $cc not found; the NVML tests need a C compiler (apt-get install gcc)" >&2
    exit 1
fi
for variant in current old; do
    mkdir -p "$out/$variant/usr/lib64"
    flags=""
    [ "$variant" = old ] && flags="-DOLD_NVML"
    # -Bsymbolic and hidden visibility keep each copy's calls inside itself when several are loaded.
    "$cc" -std=c11 -O1 -Wall -Wextra -Werror -Wno-format-truncation -fPIC -shared -fvisibility=hidden -Wl,-Bsymbolic \
        -Wl,-soname,libnvidia-ml.so.1 $flags -o "$out/$variant/usr/lib64/libnvidia-ml.so.1" \
        "$here/fake_nvml.c" -ldl -lpthread
done
