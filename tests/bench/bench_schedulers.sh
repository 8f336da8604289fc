#!/usr/bin/env bash
# Benchmark, for each batch scheduler in one run: Slurm on the local test
# cluster (when it is up), PBS and LSF on the fakes in tests/fixtures/fake-sched.
#  - 20 steps in a 4-node allocation, launch to all completed, against the same 20 on
#    the local launcher in this script (the baseline);
#  - 20 entities as jobs of their own: polls, and scheduler status commands per poll
#    (must be at most 1, whatever the number of jobs);
#  - PBS and LSF: 200 one-task members through the node agents against an mpirun each.
#   tests/bench/bench_schedulers.sh   (after a build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
fakes=$root/tests/fixtures/fake-sched
work=$(mktemp -d)
holder=""
cleanup() {
  [ -n "$holder" ] && { scancel "$holder" 2>/dev/null || qdel "$holder" 2>/dev/null || bkill "$holder" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
export SSIM_STATE_HOME=$work/state
cd "$work"  # qsub and bsub leave the holder job's output where they are called

seconds() { grep -oP 'all ended \K[0-9.]+(?=s)' "$1/.ssim/ssim.log"; }
polls() { grep -oP '\K[0-9]+(?= polls,)' "$1/.ssim/ssim.log"; }
queries() { grep -oP 'polls, \K[0-9]+' "$1/.ssim/ssim.log"; }

steps_yaml() {  # name launcher [members]
  printf 'experiment: {name: %s, path: %s, launcher: %s}\nensembles:\n  - {name: s, exe: /bin/true, replicas: %s, run: {exclusive: false}}\n' \
    "$1" "$work/$1" "$2" "${3:-20}" > "$work/$1.yaml"
}
jobs_yaml() {  # name launcher
  printf 'experiment: {name: %s, path: %s, launcher: %s}\nensembles:\n  - {name: j, exe: /bin/sleep, args: ["1"], replicas: 20, batch: {nodes: 1}}\n' \
    "$1" "$work/$1" "$2" > "$work/$1.yaml"
}

steps_yaml base local
"$ssim" run "$work/base.yaml" > /dev/null 2>&1
base=$(seconds "$work/base")
echo "baseline: 20 steps on the local launcher, launch to all completed: ${base}s"

report() {  # scheduler
  local s=$1
  printf '%-6s 20 steps in the allocation: %ss (%.1fx the local launcher); polls %s, scheduler queries %s\n' \
    "$s" "$(seconds "$work/${s}_steps")" "$(echo "$(seconds "$work/${s}_steps") / $base" | bc -l)" \
    "$(polls "$work/${s}_steps")" "$(queries "$work/${s}_steps")"
  local p q
  p=$(polls "$work/${s}_jobs"); q=$(queries "$work/${s}_jobs")
  printf '%-6s 20 jobs of their own: %ss; polls %s, scheduler queries %s = %.2f per poll\n' \
    "$s" "$(seconds "$work/${s}_jobs")" "$p" "$q" "$(echo "$q / $p" | bc -l)"
}

if sinfo -h > /dev/null 2>&1; then
  holder=$(salloc -N4 --no-shell -J ssim-bench 2>&1 | grep -o 'allocation [0-9]*' | grep -o '[0-9]*')
  steps_yaml slurm_steps slurm
  SLURM_JOB_ID=$holder SLURM_JOB_NODELIST=$(squeue -h -j "$holder" -o %N) "$ssim" run "$work/slurm_steps.yaml" > /dev/null 2>&1
  scancel "$holder"; holder=""
  jobs_yaml slurm_jobs slurm
  "$ssim" run "$work/slurm_jobs.yaml" > /dev/null 2>&1
  report slurm
else
  echo "slurm  skipped (no cluster: scripts/slurm-cluster.sh up)"
fi

export PATH=$fakes:$PATH SSIM_FAKE_PASS_ENV=SSIM_STATE_HOME
for s in pbs lsf; do
  export SSIM_FAKE_SCHED_DIR=$work/fake-$s
  env_file=$work/$s-holder.env
  if [ $s = pbs ]; then
    printf '#!/bin/bash\n#PBS -l select=4:ncpus=1:mpiprocs=1\nenv > %s.tmp; mv %s.tmp %s\nexec sleep 600\n' "$env_file" "$env_file" "$env_file" > "$work/holder.sh"
    holder=$(qsub "$work/holder.sh")
  else
    printf '#!/bin/bash\n#BSUB -n 4\n#BSUB -R "span[ptile=1]"\nenv > %s.tmp; mv %s.tmp %s\nexec sleep 600\n' "$env_file" "$env_file" "$env_file" > "$work/holder.sh"
    holder=$(bsub < "$work/holder.sh" | grep -o '<[0-9]*>' | tr -d '<>')
  fi
  for _ in $(seq 100); do [ -f "$env_file" ] && break; sleep 0.1; done  # the holder job starts
  steps_yaml ${s}_steps $s
  in_job() { (set -a; . <(grep -E '^(PBS_|LSB_|OMPI_MCA_plm_rsh_agent)' "$env_file" | sed "s/=\(.*\)/='\1'/"); "$@"); }
  in_job "$ssim" run "$work/${s}_steps.yaml" > /dev/null 2>&1
  # 200 one-task members: through the node agents (one mpirun), and as an mpirun each.
  # (On the fakes about a third of those mpiruns take 5 s: the orted a fake host starts
  # is a local process that outlives mpirun a while, and the supervisor waits for what a
  # job leaves behind. On a real node that orted is remote; count on ~0.1-0.5 s each.)
  steps_yaml ${s}_agents $s 200
  in_job "$ssim" run "$work/${s}_agents.yaml" > /dev/null 2>&1
  steps_yaml ${s}_mpiruns $s 200
  SSIM_AGENTS=0 in_job "$ssim" run "$work/${s}_mpiruns.yaml" > /dev/null 2>&1
  a=$(seconds "$work/${s}_agents"); m=$(seconds "$work/${s}_mpiruns")
  printf '%-6s 200 members in the allocation: through agents %ss (%.0f/s), an mpirun each %ss (%.0f/s): %.1fx\n' \
    "$s" "$a" "$(echo "200 / $a" | bc -l)" "$m" "$(echo "200 / $m" | bc -l)" "$(echo "$m / $a" | bc -l)"
  if [ $s = pbs ]; then qdel "$holder"; else bkill "$holder" > /dev/null; fi
  holder=""
  jobs_yaml ${s}_jobs $s
  "$ssim" run "$work/${s}_jobs.yaml" > /dev/null 2>&1
  report $s
  status_cmd=$([ $s = pbs ] && echo qstat || echo bjobs)
  echo "$s    status commands the fake saw: $(grep -c "\"$status_cmd\"" "$SSIM_FAKE_SCHED_DIR/calls.log")"
done
