#!/usr/bin/env bash
# Installs what ssim needs to build, test and run its examples, from Debian packages.
#   scripts/install-deps.sh            everything (the test command)
#   scripts/install-deps.sh --minimal  what the quickstart needs: the compiler and the
#                                      libraries of ssim itself, redis-server and redis-cli
# Idempotent: packages already present are skipped, and apt is not touched at all
# when nothing is missing.
set -euo pipefail

minimal_pkgs=(g++ make cmake ninja-build pkg-config
  libboost1.81-dev libboost-filesystem1.81-dev
  libyaml-cpp-dev libspdlog-dev libcli11-dev nlohmann-json3-dev libhiredis-dev
  redis-server redis-tools procps)
build_pkgs=(build-essential catch2 gfortran libtorch-dev)  # the tests; the Fortran client module; the inference service
runtime_pkgs=(openmpi-bin libopenmpi-dev python3)
test_pkgs=(groff-base dpkg-dev util-linux chromium  # man pages checked, cpack -G DEB, setsid and mount in the fault tests, the HTML report in a browser
  clang-format  # the tree's format, checked by the tests
  charliecloud-runtime mmdebstrap  # containers: Charliecloud's ch-run, and the test image built from Debian packages
  lmod tcl)  # a site's module systems: Lmod installed, Environment Modules (which conflicts with it) unpacked by the test
# Environment Modules for the site tests, as Debian ships it, kept as its package: the
# test unpacks it into a folder of its own (Debian will not install it beside lmod).
site_debs=/var/cache/ssim-test
fetch_site_debs() {
  [ "${1:-}" != --minimal ] || return 0
  ls "$site_debs"/environment-modules_*.deb >/dev/null 2>&1 && return 0
  mkdir -p "$site_debs"
  (cd "$site_debs" && ${SUDO:-} apt-get download -qq environment-modules) ||
    { [ -n "${updated:-}" ] || { ${SUDO:-} apt-get update -qq && (cd "$site_debs" && ${SUDO:-} apt-get download -qq environment-modules); }; }
}
python_pkgs=(python3-dev pybind11-dev python3-numpy python3-redis python3-torch python3-mpi4py python3-venv python3-pip
  python3-nbclient python3-ipykernel python3-pandas)  # the notebook example, pip install into a venv

case "${1:-}" in
  "") want=("${minimal_pkgs[@]}" "${build_pkgs[@]}" "${runtime_pkgs[@]}" "${python_pkgs[@]}" "${test_pkgs[@]}") ;;
  --minimal) want=("${minimal_pkgs[@]}") ;;
  *) echo "usage: $0 [--minimal]" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if [ ${#missing[@]} -eq 0 ]; then
  fetch_site_debs "${1:-}"
  echo "install-deps: everything is already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
updated=1
fetch_site_debs "${1:-}"
