#!/usr/bin/env bash
# Benchmark: reading metrics at scale. 5,000 members (a finished run of /bin/true) with
# 1,000 points each of one metric (5 million points, written straight into each member's
# metrics.0.ndjson as ssim.metrics.log writes them), then the time and peak memory of
# what reads them: ssim status -o (latest value), ssim status --json (with the goal),
# ssim report (the Metrics section), ssim metrics --csv, and the dashboard's status,
# report and one member's live curve.
#   tests/bench/bench_metrics_scale.sh [MEMBERS=5000] [POINTS=1000]   (after scripts/build.sh)
# Not right after deleting many files on the same ext4 file system (see bench_agents.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
members=${1:-5000}
points=${2:-1000}
dir=$(mktemp -d)
dash=""
trap '[ -n "$dash" ] && kill "$dash" 2>/dev/null; rm -rf "$dir"' EXIT
export SSIM_STATE_HOME=$dir/state
cat > "$dir/exp.yaml" <<YAML
experiment: {name: scale, path: $dir/scale}
ensembles:
  - {name: m, exe: /bin/true, replicas: $members, goal: {metric: loss, at_most: 0.01}}
YAML
"$ssim" run "$dir/exp.yaml" > /dev/null 2>&1
/usr/bin/python3 - "$dir/scale/m" "$members" "$points" <<'PY'
import json, os, sys
base, members, points = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(members):
    lines = [json.dumps({"name": "loss", "value": 1.0 / (s + 1 + i % 7), "step": s, "rank": 0, "time": 1.7e9 + s})
             for s in range(points)]
    with open(os.path.join(base, f"m_{i}", "metrics.0.ndjson"), "w") as f:
        f.write("\n".join(lines) + "\n")
PY
printf 'members %d x points %d = %d points, %s on disk\n' "$members" "$points" "$((members * points))" "$(du -sh "$dir/scale" | cut -f1)"
timed() {  # LABEL COMMAND...: wall seconds and peak RSS
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/t" "$@" > "$dir/out" 2>/dev/null || true
  read -r s kb < "$dir/t"
  printf '%-34s %6.2f s  %6d MB\n' "$label" "$s" "$((kb / 1024))"
}
timed "ssim status -o name,loss" "$ssim" status "$dir/scale" -o name,loss
timed "ssim status --json (goals)" "$ssim" status "$dir/scale" --json
timed "ssim report" "$ssim" report "$dir/scale" -o "$dir/report.html"
printf '%-34s %6s MB\n' "  report size" "$(( $(stat -c %s "$dir/report.html") / 1048576 ))"
timed "ssim metrics --csv" "$ssim" metrics "$dir/scale" --csv -o "$dir/all.csv"
"$ssim" dashboard "$dir/scale" --port 0 > "$dir/url" 2>/dev/null &
dash=$!
for _ in $(seq 100); do [ -s "$dir/url" ] && break; sleep 0.05; done
url=$(head -1 "$dir/url"); base=${url%%/?token=*}; token=${url##*token=}
exp=$(/usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$dir/scale")
get() {  # PATH [QUERY]: seconds for the whole answer
  /usr/bin/python3 -c 'import sys, time, urllib.request as u
t = time.perf_counter(); u.urlopen(sys.argv[1], timeout=120).read(); print(f"{time.perf_counter() - t:.3f}")' "$base$1?exp=$exp&token=$token${2:-}"
}
printf '%-34s %6.2f s\n' "dashboard /api/status (first)" "$(get /api/status)"
printf '%-34s %6.2f s\n' "dashboard /api/status (cached)" "$(get /api/status)"
printf '%-34s %6.2f s\n' "dashboard /report" "$(get /report)"
printf '%-34s %6.3f s\n' "dashboard /api/metrics (a member)" "$(get /api/metrics '&entity=m_42')"
