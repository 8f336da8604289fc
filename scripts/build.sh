#!/usr/bin/env bash
# Configures and builds ssim into ./build, showing the build's progress; the full output
# goes to build/build.log.
#   scripts/build.sh               everything: the command, the clients for C++, C,
#                                  Fortran and Python, the examples, tests and benchmarks
#   scripts/build.sh --quickstart  only what the quickstart runs: ssim and its supervisor
#                                  (optimised, no debug info)
# Both build with Ninja, in unity batches (one compiler run per group of files).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
# -USSIM_INFERENCE: the quickstart's OFF, kept in the cache, must not hide the inference
# service from a full build after it (the option's default: on where libtorch is found).
options=(-DSSIM_FORTRAN=ON -DSSIM_PYTHON=ON -DSSIM_EXAMPLES=ON -DBUILD_TESTING=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -USSIM_INFERENCE)
targets=()
case "${1:-}" in
  "") ;;
  --quickstart)
    options=(-DSSIM_FORTRAN=OFF -DSSIM_PYTHON=OFF -DSSIM_EXAMPLES=OFF -DSSIM_INFERENCE=OFF -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release)
    targets=(--target ssim ssim-supervise) ;;
  *) echo "usage: $0 [--quickstart]" >&2; exit 2 ;;
esac
generator=(-G Ninja)
# A build folder keeps the generator it was made with.
[ -f build/CMakeCache.txt ] && generator=()
if [ ! -f build/CMakeCache.txt ]; then
  if [ -n "${targets[*]}" ]; then
    echo "build: first build; about 90 s on 2 cores"
  else
    echo "build: first build of everything; about 3 minutes on 2 cores (later builds redo only what changed)"
  fi
fi
mkdir -p build
cmake -S . -B build "${generator[@]}" "${options[@]}" -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DCMAKE_OPTIMIZE_DEPENDENCIES=ON > build/build.log 2>&1 || { cat build/build.log; exit 1; }
# One line per compiled file: "[12/64] lib/spec (unity_0)", "[13/64] local_launcher.cpp".
if ! cmake --build build -j"$(nproc)" "${targets[@]}" 2>&1 | tee -a build/build.log |
    sed -un -e 's|^\[\([0-9]*/[0-9]*\)\] Building [A-Z]* object \(.*\)/CMakeFiles/[^/]*/Unity/\(unity_[0-9]*\)_[a-z]*\.[a-z]*\.o$|  [\1] \2 (\3)|p' \
            -e 's|^\[\([0-9]*/[0-9]*\)\] Building [A-Z]* object .*/\([^/]*\)\.o$|  [\1] \2|p' \
            -e 's|^\[ *\([0-9]*%\)\] Building [A-Z]* object .*/\([^/]*\)\.o$|  [\1] \2|p'; then
  tail -50 build/build.log
  exit 1
fi
echo "build: ok in $(( $(date +%s) - start )) s (build/apps/ssim/ssim)"
