#!/usr/bin/env bash
# The quickstart: installs what is missing, builds, runs examples/quickstart, and shows
# what its consumer read from the database. Each step says what it does and how long
# it took.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
step() { echo; echo "== $* ($(( $(date +%s) - t0 )) s so far)"; }
step "1/3 installing missing Debian packages (scripts/install-deps.sh --minimal)"
scripts/install-deps.sh --minimal
step "2/3 building ssim (scripts/build.sh --quickstart)"
scripts/build.sh --quickstart
step "3/3 running examples/quickstart: a database, two producers, a consumer"
ssim=build/apps/ssim/ssim
"$ssim" run examples/quickstart/experiment.yaml --overwrite "$@"
echo
echo "consumer output (ssim logs consumer):"
"$ssim" logs runs/quickstart consumer
echo
echo "done in $(( $(date +%s) - t0 )) s"
