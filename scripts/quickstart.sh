#!/usr/bin/env bash
# The quickstart: installs what is missing, builds, runs examples/quickstart, and shows
# what its consumer read from the database.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ssim=build/apps/ssim/ssim
"$ssim" run examples/quickstart/experiment.yaml --overwrite "$@"
echo
echo "consumer output (ssim logs consumer):"
"$ssim" logs runs/quickstart consumer
