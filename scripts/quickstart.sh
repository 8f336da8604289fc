#!/usr/bin/env bash
# The quickstart: installs what is missing, builds, and runs examples/quickstart.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/apps/ssim/ssim run examples/quickstart/experiment.yaml --overwrite "$@"
