#!/usr/bin/env bash
# Benchmark: inside a 4-node allocation of the local test cluster, the time to
# start 20 srun steps and see them all completed, and the scheduler commands ssim issued
# per poll (must be 1).   tests/bench/bench_slurm.sh   (cluster up, after a build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
work=$(mktemp -d)
job=$(salloc -N4 --no-shell -J ssim-bench 2>&1 | grep -o 'allocation [0-9]*' | grep -o '[0-9]*')
trap 'scancel $job; rm -rf "$work"' EXIT
export SSIM_STATE_HOME=$work/state SLURM_JOB_ID=$job SLURM_JOB_NODELIST=$(squeue -h -j "$job" -o %N)
cat > "$work/e.yaml" <<YAML
experiment: {name: bench, path: $work/bench, launcher: slurm}
ensembles:
  - {name: s, exe: /bin/true, replicas: 20, run: {exclusive: false}}
YAML
t0=$(date +%s.%N)
"$ssim" run "$work/e.yaml" > /dev/null 2>&1
t1=$(date +%s.%N)
log=$work/bench/.ssim/ssim.log
grep -oP 'all ended \K[0-9.]+s' "$log" | sed 's/^/20 srun steps, launch to all completed: /'
printf '20 srun steps, whole ssim run: %.2f s\n' "$(echo "$t1 - $t0" | bc -l)"
polls=$(grep -oP '\K[0-9]+(?= polls,)' "$log"); queries=$(grep -oP 'polls, \K[0-9]+' "$log")
echo "polls: $polls, scheduler queries (sacct): $queries -> at most 1 per poll"
echo "completed: $("$ssim" status "$work/bench" --json | grep -c '"status": "completed"') of 20"
