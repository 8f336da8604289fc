#!/usr/bin/env bash
# Benchmark: the cost of one ssim.metrics.log call (Python), against appending the same
# dict to a list in the same process (the least a logger can do), over 200,000 calls;
# and how long `ssim status -o name,loss` and `ssim metrics --csv` take to read them back.
#   tests/bench/bench_metrics.sh [CALLS]      (after scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
calls=${1:-200000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export SSIM_STATE_HOME=$dir/state
cd "$dir"
cat > logger.py <<PY
import time, ssim.metrics as m
n = $calls
baseline = []
t0 = time.perf_counter()
for i in range(n):
    baseline.append({"name": "loss", "value": 1.0 / (i + 1), "step": i})
t1 = time.perf_counter()
for i in range(n):
    m.log("loss", 1.0 / (i + 1), step=i)
t2 = time.perf_counter()
m.flush()
t3 = time.perf_counter()
print(f"baseline list append    {(t1 - t0) / n * 1e6:.2f} us/call")
print(f"ssim.metrics.log        {(t2 - t1) / n * 1e6:.2f} us/call   ratio {(t2 - t1) / (t1 - t0):.1f}x (issue 25: cheap enough for every batch)")
print(f"final flush             {(t3 - t2) * 1000:.0f} ms for what was still buffered")
PY
cat > experiment.yaml <<YAML
experiment: {name: mb}
models:
  - {name: logger, exe: /usr/bin/python3, args: [$dir/logger.py]}
YAML
"$ssim" run experiment.yaml > /dev/null 2>&1
cat mb/logger/logger.out
size=$(du -k mb/logger/metrics.0.ndjson | cut -f1)
echo "stored                  $calls points, ${size} KiB"
t0=$(date +%s.%N); "$ssim" status mb -o name,loss > /dev/null; t1=$(date +%s.%N)
echo "ssim status -o loss     $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms"
t0=$(date +%s.%N); "$ssim" metrics mb --csv > /dev/null; t1=$(date +%s.%N)
echo "ssim metrics --csv      $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms"
