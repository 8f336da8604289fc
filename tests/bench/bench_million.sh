#!/usr/bin/env bash
# Benchmark (issue 54, item 2): one experiment of N members of /bin/true on the local
# launcher (N=1,000,000 by default), as a user lives with it:
#   - `ssim status --summary` and `--json` timed while it runs (at N/4 ended) and after;
#   - `ssim run` killed with kill -9 at N/2 ended, then `--resume` of the rest;
#   - ssim's peak RSS in both halves (/usr/bin/time);
#   - the whole (both halves) against a posix_spawn loop of N processes, timed on N/10
#     and scaled (a loop of a million /bin/true takes minutes and scales linearly);
#   - `ssim stop` of a run of N members of `sleep` (the cores' worth running, the rest
#     waiting): its time, and that nothing of it is left.
# With `agents`, the same inside a 4-node allocation of the local test cluster (cluster
# up), through node agents, against the pilot (one srun of a spawn loop per node) instead.
#   tests/bench/bench_million.sh [N] [local|agents]     (after scripts/build.sh; about 40
#   minutes at N=1,000,000 on 2 cores)
set -euo pipefail
n=${1:-1000000}
mode=${2:-local}
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
baseline=$root/build/tests/bench/spawn_baseline
work=$(mktemp -d)
job=
trap 'pkill -9 -f "$work/" 2>/dev/null || true; [ -z "$job" ] || scancel "$job"; rm -rf "$work"' EXIT
export SSIM_STATE_HOME=$work/state
launcher=local
if [ "$mode" = agents ]; then
  launcher=slurm
  job=$(salloc -N4 --exclusive --no-shell -J ssim-million 2>&1 | grep -o 'allocation [0-9]*' | grep -o '[0-9]*')
  slots=$(squeue -h -j "$job" -o %C)
  # What a shell inside the allocation sees (the 4 nodes are alike).
  export SLURM_JOB_ID=$job SLURM_JOB_NODELIST=$(squeue -h -j "$job" -o %N) \
    SLURM_JOB_CPUS_PER_NODE="$((slots / 4))(x4)"
fi
experiment() {  # FILE PATH N EXE [ARG]
  cat > "$1" <<YAML
experiment: {name: big, path: $2, launcher: $launcher}
ensembles:
  - {name: m, exe: $4, args: [${5:-}], replicas: $3}
YAML
}
now() { date +%s.%N; }
# Members begun, read cheaply from the size of the keepers' journals (a slot of fixed
# length each; reading a million records every second would weigh on the run). A member
# of /bin/true ends as it begins.
ended() {
  local journals=("$work/big/.ssim/keepers/"*.ndjson)
  [ -f "${journals[0]}" ] || { echo 0; return; }
  local slot total
  slot=$(head -1 "${journals[0]}" | wc -c)
  total=$(stat -c %s "${journals[@]}" | paste -sd+ | bc)
  echo $((total / slot))
}
wait_ended() {  # COUNT
  local deadline=$(($(date +%s) + 7200))
  until [ "$(ended)" -ge "$1" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "the run did not reach $1 ends" >&2; exit 1; }
    sleep 1
  done
}
timed() {  # LABEL COMMAND...: prints the seconds and the output's size
  local t0 t1
  t0=$(now)
  "${@:2}" > "$work/out" 2> /dev/null || true
  t1=$(now)
  printf '%-44s %6.2f s  (%s bytes)\n' "$1" "$(echo "$t1 - $t0" | bc -l)" "$(stat -c %s "$work/out")"
}
rss_mb() { echo $(($(grep -o '^[0-9]*' "$1" | tail -1) / 1024)); }

printf 'members %d (%s), %d cores, load %s\n' "$n" "$mode" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
if [ "$mode" = agents ]; then
  t0=$(now)
  srun --jobid="$job" -N4 --ntasks-per-node=1 "$baseline" $((n / 40)) /bin/true > /dev/null
  base=$(echo "($(now) - $t0) * 10" | bc -l)
  printf 'pilot (a spawn loop of %d per node), times 10   %6.2f s\n' $((n / 40)) "$base"
else
  base=$(echo "$("$baseline" $((n / 10)) /bin/true) * 10" | bc -l)
  printf 'posix_spawn loop of %d, times 10          %6.2f s\n' $((n / 10)) "$base"
fi

experiment "$work/big.yaml" "$work/big" "$n" /bin/true
t_start=$(now)
/usr/bin/time -f %M -o "$work/first.rss" "$ssim" run "$work/big.yaml" --max-members "$n" > /dev/null 2>&1 &
timer=$!
wait_ended $((n / 4))
printf 'at %d ended:\n' "$(ended)"
timed '  ssim status --summary (while it runs)' "$ssim" status "$work/big" --summary
timed '  ssim status --json (while it runs)' "$ssim" status "$work/big" --json
wait_ended $((n / 2))
pkill -9 -P "$timer" -x ssim || true
wait "$timer" 2> /dev/null || true
t_killed=$(now)
printf 'killed with %d ended: first half %.1f s, peak RSS %d MB\n' "$(ended)" "$(echo "$t_killed - $t_start" | bc -l)" \
  "$(rss_mb "$work/first.rss")"

t0=$(now)
/usr/bin/time -f %M -o "$work/resume.rss" "$ssim" run "$work/big.yaml" --resume --max-members "$n" > /dev/null \
  2> "$work/resume.err" || echo "  --resume failed: $(grep -v '^Command exited' "$work/resume.err" | tail -1)"
t1=$(now)
resume=$(echo "$t1 - $t0" | bc -l)
printf -- '--resume of the rest: %.1f s, peak RSS %d MB\n' "$resume" "$(rss_mb "$work/resume.rss")"
whole=$(echo "$t_killed - $t_start + $resume" | bc -l)
printf 'both halves: %.1f s = %.2fx the baseline (%.0f members/s)\n' "$whole" "$(echo "$whole / $base" | bc -l)" \
  "$(echo "$n / $whole" | bc -l)"
timed 'ssim status --summary (after)' "$ssim" status "$work/big" --summary
grep -o '[0-9]* completed' "$work/out" | head -1 | sed 's/^/  /'
timed 'ssim status --json (after)' "$ssim" status "$work/big" --json
rm -rf "$work/big"

experiment "$work/slow.yaml" "$work/slow" "$n" /bin/sleep '"600"'
"$ssim" run "$work/slow.yaml" --max-members "$n" > /dev/null 2>&1 &
run=$!
deadline=$(($(date +%s) + 1800))
until "$ssim" status "$work/slow" --summary 2> /dev/null | grep -q '[1-9][0-9]* running'; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "nothing of the sleeping run started" >&2; exit 1; }
  sleep 1
done
"$ssim" status "$work/slow" --json > "$work/slow.json" 2> /dev/null
id=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$work/slow.json")
timed "ssim stop of $n (running and waiting)" "$ssim" stop "$work/slow"
wait "$run" 2> /dev/null || true
left=$(grep -ls "SSIM_EXPERIMENT_ID=$id" /proc/[0-9]*/environ 2> /dev/null | wc -l || true)
printf '  the run ended; processes of it left: %d\n' "$left"
