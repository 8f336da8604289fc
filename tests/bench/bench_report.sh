#!/usr/bin/env bash
# Benchmark: `ssim report` on a finished 5,000-member experiment (two swept
# parameters, every member /bin/true): its time and file size (targets: under 1 s, under
# 5 MB), against `ssim status --json` on the same experiment in the same run; and the
# dashboard's /api/status response time for it (target: under 50 ms).
#   tests/bench/bench_report.sh [MEMBERS]      (after scripts/build.sh; default 5000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
members=${1:-5000}
dir=$(mktemp -d)
trap '[ -n "${dash:-}" ] && kill "$dash" 2>/dev/null; rm -rf "$dir"' EXIT
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

"$ssim" dashboard big > "$dir/url" 2> /dev/null &
dash=$!
for _ in $(seq 100); do [ -s "$dir/url" ] && break; sleep 0.05; done
url=$(head -1 "$dir/url")
api="${url%%/?token=*}/api/status?exp=$dir/big&token=${url##*token=}"
# The first request reads the manifest; later ones are served from the dashboard's
# cache while the finished experiment's manifest does not change.
first=$(curl -s -o /dev/null -w '%{time_total}' "$api")
times=$(for _ in $(seq 10); do curl -s -o /dev/null -w '%{time_total}\n' "$api"; done | sort -n)
awk -v first="$first" -v best="$(echo "$times" | head -1)" -v median="$(echo "$times" | sed -n 5p)" -v n="$(( a * 50 ))" \
  'BEGIN { printf "dashboard /api/status for %d members: first %.0f ms; then best %.1f ms, median %.1f ms (10 requests)\n", n, first * 1000, best * 1000, median * 1000 }'
