#!/usr/bin/env bash
# The test command: installs what is missing, builds, brings up the local Slurm test
# cluster (scripts/slurm-cluster.sh), runs every test with ctest, and takes the cluster
# down again whatever the tests did.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/slurm-cluster.sh up
trap 'scripts/slurm-cluster.sh down' EXIT
cd build
ctest --output-on-failure -j2 "$@"
