#!/usr/bin/env bash
# Benchmark: a 1,000-member ensemble of /bin/true on the local launcher,
# against a plain posix_spawn loop of the same 1,000 processes, in the same run;
# packed by the cores and with oversubscription allowed; through the run's agent (the
# default) and with a supervisor per batch (SSIM_AGENTS=0).
# Every run gets a folder of its own and nothing is deleted before the last one: on
# ext4, creating files in the minute after deleting many is 2-3x slower, which would
# measure the file system rather than ssim.
#   tests/bench/bench_engine.sh [N]      (after scripts/build.sh)
set -euo pipefail
n=${1:-1000}
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
baseline=$root/build/tests/bench/spawn_baseline
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SSIM_STATE_HOME=$work/state
now() { date +%s.%N; }
base=$("$baseline" "$n" /bin/true)
printf 'members                      %d\n' "$n"
printf 'baseline posix_spawn loop    %.2f s\n' "$base"

# Twice: packed by the cores (the default: as many at once as there are cores, a
# freed core taken at once), and with oversubscription allowed (all at once).
for agents in 1 0; do
for mode in packed oversubscribe; do
  over=false
  [ "$mode" = oversubscribe ] && over=true
  exp=$work/bench-$mode-$agents
  cat > "$work/experiment.yaml" <<YAML
experiment: {name: bench, path: $exp, oversubscribe: $over}
ensembles:
  - {name: m, exe: /bin/true, replicas: $n}
YAML
  t0=$(now)
  SSIM_AGENTS=$agents "$ssim" run "$work/experiment.yaml" > /dev/null 2>&1
  t1=$(now)
  total=$(echo "$t1 - $t0" | bc -l)

  # The engine logs when generation ended and when the run finished.
  log=$exp/.ssim/ssim.log
  gen=$(grep -oP 'generated \d+ run directories in \K[0-9.]+' "$log")
  launch=$(grep -oP 'all ended \K[0-9.]+(?=s after the first start)' "$log")
  best=999
  for _ in 1 2 3 4 5; do
    a=$(now); "$ssim" status "$exp" --json > /dev/null; b=$(now)
    t=$(echo "($b - $a) * 1000" | bc -l)
    best=$(echo "if ($t < $best) $t else $best" | bc -l)
  done
  completed=$("$ssim" status "$exp" --json | grep -c '"status": "completed"')
  how="through the run's agent"
  [ "$agents" = 0 ] && how="a supervisor per batch (SSIM_AGENTS=0)"
  echo "-- $mode ($(nproc) cores), $how: $completed completed"
  printf 'ssim generate                %.2f s\n' "$gen"
  printf 'ssim launch-to-all-completed %.2f s\n' "$launch"
  printf 'ssim run, whole command      %.2f s   ratio to baseline %.2fx (target <= 1.5x)\n' "$total" "$(echo "$total / $base" | bc -l)"
  printf 'ssim status (best of 5)      %.0f ms  (target < 100 ms)\n' "$best"
done
done
