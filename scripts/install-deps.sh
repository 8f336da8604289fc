#!/usr/bin/env bash
# Installs what ssim needs to build, test and run its examples, from Debian packages.
# Idempotent: packages already present are skipped, and apt is not touched at all
# when nothing is missing.
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config
  libboost1.81-dev libboost-filesystem1.81-dev
  libyaml-cpp-dev libspdlog-dev libcli11-dev nlohmann-json3-dev libhiredis-dev catch2
  gfortran)  # the Fortran client module
runtime_pkgs=(redis-server redis-tools openmpi-bin libopenmpi-dev procps python3)
test_pkgs=(groff-base dpkg-dev util-linux chromium)  # man pages checked, cpack -G DEB, setsid and mount in the fault tests, the HTML report in a browser
python_pkgs=(python3-dev pybind11-dev python3-numpy python3-redis python3-torch python3-mpi4py)

want=("${build_pkgs[@]}" "${runtime_pkgs[@]}" "${python_pkgs[@]}" "${test_pkgs[@]}")
case "${1:-}" in
  --minimal|"") ;;
  *) echo "usage: $0 [--minimal]" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
