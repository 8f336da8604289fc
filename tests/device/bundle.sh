#!/usr/bin/env bash
# Makes the bundle the GPU device check carries (tests/device/README.md): ssim and its
# supervisor as built here (stripped), the shared libraries they and Debian's
# redis-server need beyond the C and C++ runtimes, and the hiredis and nlohmann headers
# that building the Python module for the device's own interpreter takes.
#   tests/device/bundle.sh [FOLDER]      (default .device, ignored by git)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/.device}
[ -x "$root/build/apps/ssim/ssim" ] || { echo "bundle: build ssim first (scripts/build.sh)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/build/apps/ssim" "$out/build/python/ssim" "$out/lib" "$out/redis" "$out/bin" "$out/include"
for b in ssim ssim-supervise; do
  strip -o "$out/build/apps/ssim/$b" "$root/build/apps/ssim/$b"
done
# Libraries beyond glibc and the C++ runtime (the device's own are newer).
copy_libs() {  # BINARY FOLDER
  ldd "$1" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
    case "$(basename "$lib")" in libc.so*|libm.so*|libstdc++*|libgcc_s*|libpthread*|libdl.so*|librt.so*) continue ;; esac
    cp -L "$lib" "$2/"
  done
}
copy_libs "$root/build/apps/ssim/ssim" "$out/lib"
cp -L /usr/bin/redis-server "$out/redis/redis-server"
copy_libs /usr/bin/redis-server "$out/redis"
# redis-server's libraries for it alone, not for every program ssim starts.
cat > "$out/bin/redis-server" <<'SH'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")/../redis
LD_LIBRARY_PATH=$here exec "$here/redis-server" "$@"
SH
chmod +x "$out/bin/redis-server"
cp -r /usr/include/hiredis /usr/include/nlohmann "$out/include/"
ln -sf "$(basename "$(readlink -f /usr/lib/x86_64-linux-gnu/libhiredis.so)")" "$out/lib/libhiredis.so"
du -sh "$out" | awk '{print "bundle: " $1 " in '"$out"'"}'
