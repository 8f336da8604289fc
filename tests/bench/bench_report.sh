#!/usr/bin/env bash
# Benchmark (issue 12): `ssim report` on a finished 5,000-member experiment (two swept
# parameters, every member /bin/true): its time and file size (targets: under 1 s, under
# 5 MB), against `ssim status --json` on the same experiment in the same run.
#   tests/bench/bench_report.sh [MEMBERS]      (after scripts/build.sh; default 5000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
members=${1:-5000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export SSIM_STATE_HOME=$dir/state
cd "$dir"
a=$(( members / 50 ))
cat > experiment.yaml <<YAML
experiment: {name: big, oversubscribe: true}
ensembles:
  - name: sweep
    params: {a: [$(seq -s, 1 "$a")], b: [$(seq -s, 1 50)]}
    exe: /bin/true
YAML
"$ssim" run experiment.yaml --max-members "$members" > /dev/null 2>&1
best() {  # best wall time of 3 runs of "$@", in seconds
  local b=1e9 t0 t1
  for _ in 1 2 3; do
    t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
    b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { d = z - a; print (d < b ? d : b) }')
  done
  echo "$b"
}
report=$(best "$ssim" report big -o "$dir/report.html")
status=$(best "$ssim" status big --json)
size=$(stat -c %s "$dir/report.html")
awk -v n="$(( a * 50 ))" -v r="$report" -v s="$size" -v st="$status" \
  'BEGIN { printf "%d members: ssim report %.3f s, %.2f MB; ssim status --json %.3f s (report/status %.1fx)\n", n, r, s / 1e6, st, r / st }'
