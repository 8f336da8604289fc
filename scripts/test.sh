#!/usr/bin/env bash
# The test command: installs what is missing, builds, brings up the local Slurm test
# cluster (scripts/slurm-cluster.sh), runs every test with ctest, and takes the cluster
# down again whatever the tests did. Exits with ctest's status.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
scripts/build.sh
scripts/slurm-cluster.sh up
trap 'rc=$?; "$root/scripts/slurm-cluster.sh" down || true; exit $rc' EXIT
cd "$root/build"
ctest --output-on-failure -j2 "$@"
