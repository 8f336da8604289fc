#!/usr/bin/env bash
# Configures and builds ssim into ./build (Release with debug info), showing the build's
# progress; the full output goes to build/build.log.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
if [ ! -f build/CMakeCache.txt ]; then
  echo "build: first build; it takes about 4 minutes on 2 cores (later builds redo only what changed)"
fi
mkdir -p build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > build/build.log 2>&1 || { cat build/build.log; exit 1; }
# One line per compiled file, as "[ 42%] lib/spec/parse.cpp".
if ! cmake --build build -j"$(nproc)" 2>&1 | tee -a build/build.log |
    sed -un 's|^\[ *\([0-9]*%\)\] Building [A-Z]* object .*/\([^/]*\)\.o$|  [\1] \2|p'; then
  tail -50 build/build.log
  exit 1
fi
echo "build: ok in $(( $(date +%s) - start )) s (build/apps/ssim/ssim)"
