#!/usr/bin/env bash
# Benchmark: members per second inside a 4-node allocation of the local test cluster,
# through node agents (one srun for all) against the limit, a pilot without ssim (one srun
# of a posix_spawn loop per node, each running its quarter of the members: what any tool
# must pay here), in alternating pairs; then one srun step per member (SSIM_AGENTS=0); the
# `sleep 1` run against its ideal ceil(N / slots) seconds; slurmctld's CPU time and
# ssim's peak RSS for each.
#   tests/bench/bench_agents.sh [MEMBERS=2000] [STEP_MEMBERS=500] [PAIRS=3]   (cluster up, after a build)
# Not right after deleting many files on the same ext4 file system (an earlier run's
# folders): ext4 then creates files several times slower for a minute, whoever asks.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
members=${1:-2000}
step_members=${2:-500}
pairs=${3:-3}
baseline=$root/build/tests/bench/spawn_baseline
work=$(mktemp -d)
job=$(salloc -N4 --exclusive --no-shell -J ssim-bench 2>&1 | grep -o 'allocation [0-9]*' | grep -o '[0-9]*')
trap 'scancel $job; rm -rf "$work"' EXIT
slots=$(squeue -h -j "$job" -o %C)
# What a shell inside the allocation sees (the 4 nodes are alike): ssim packs by these CPUs.
export SSIM_STATE_HOME=$work/state SLURM_JOB_ID=$job SLURM_JOB_NODELIST=$(squeue -h -j "$job" -o %N) \
  SLURM_JOB_CPUS_PER_NODE="$((slots / 4))(x4)"

ctld_cpu() { awk '{print $14 + $15}' "/proc/$(pgrep -o slurmctld)/stat"; }
# run NAME N EXE ARGS: prints "seconds peak_rss_kb slurmctld_ticks"
run() {
  local name=$1 n=$2 exe=$3 args=$4
  cat > "$work/$name.yaml" <<YAML
experiment: {name: $name, path: $work/$name, launcher: slurm}
ensembles:
  - {name: m, exe: $exe, args: $args, replicas: $n}
YAML
  local c0 t0 t1 c1
  c0=$(ctld_cpu); t0=$(date +%s.%N)
  /usr/bin/time -f %M -o "$work/$name.rss" "$ssim" run "$work/$name.yaml" > "$work/$name.out" 2>&1
  t1=$(date +%s.%N); c1=$(ctld_cpu)
  local done
  done=$("$ssim" status "$work/$name" --json | grep -c '"status": "completed"' || true)
  [ "$done" = "$n" ] || { echo "$name: only $done of $n completed" >&2; exit 1; }
  echo "$(echo "$t1 - $t0" | bc -l) $(cat "$work/$name.rss") $((c1 - c0))"
}

# The pilot: the same /bin/true members, forked on each node by a loop started with one srun.
pilot() {
  local t0 t1
  t0=$(date +%s.%N)
  srun --jobid="$job" -N4 --ntasks-per-node=1 "$baseline" $((members / 4)) /bin/true > /dev/null
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
ratios=()
for i in $(seq "$pairs"); do
  read -r a_s a_rss a_ctld < <(run "agents$i" "$members" /bin/true "[]")
  p_s=$(pilot)
  ratio=$(echo "$a_s / $p_s" | bc -l)
  ratios+=("$ratio")
  printf 'pair %d: ssim through agents %.2f s (%.0f/s), pilot %.2f s (%.0f/s): %.2fx\n' "$i" "$a_s" \
    "$(echo "$members / $a_s" | bc -l)" "$p_s" "$(echo "$members / $p_s" | bc -l)" "$ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | sed -n "$(((pairs + 1) / 2))p")
printf 'agents / pilot: %.2fx the pilot'"'"'s time (median of %d pairs, load %s)\n' "$median" "$pairs" \
  "$(cut -d' ' -f1 /proc/loadavg)"
read -r s_s s_rss s_ctld < <(SSIM_AGENTS=0 run steps "$step_members" /bin/true "[]")
hz=$(getconf CLK_TCK)
printf 'through agents: %d members in %.2f s = %.0f/s (ssim peak RSS %d MB, slurmctld %.2f CPU-s)\n' \
  "$members" "$a_s" "$(echo "$members / $a_s" | bc -l)" $((a_rss / 1024)) "$(echo "$a_ctld / $hz" | bc -l)"
printf 'a step each:    %d members in %.2f s = %.0f/s (ssim peak RSS %d MB, slurmctld %.2f CPU-s)\n' \
  "$step_members" "$s_s" "$(echo "$step_members / $s_s" | bc -l)" $((s_rss / 1024)) "$(echo "$s_ctld / $hz" | bc -l)"
printf 'agents / steps: %.1fx members per second\n' "$(echo "($members / $a_s) / ($step_members / $s_s)" | bc -l)"

n=$((slots * 4))
read -r z_s _ _ < <(run sleepers "$n" /bin/sleep "['1']")
printf 'sleep 1 x %d on %d slots: %.2f s, ideal %d s (%+.0f%%)\n' "$n" "$slots" "$z_s" 4 \
  "$(echo "($z_s - 4) * 100 / 4" | bc -l)"
