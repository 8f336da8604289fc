#!/usr/bin/env bash
# Benchmark (issue 54): what one member costs the file system. An ensemble of N members
# of /bin/true on the local launcher, and through node agents when the test cluster is up
# (scripts/slurm-cluster.sh up), traced with strace (every process ssim and the agents
# start, the members' own exec excepted), counted per member in the experiment's folder:
# entries created (files opened with O_CREAT, folders made), renames, unlinks, stats, and
# lookups of files that are not there (ENOENT: on Lustre or GPFS a round trip each too). Then timing: N members against the
# spawn loop on a settled disk, and again within a minute after deleting D earlier
# members' folders (what users do all day), with the load average; beside the bare loop,
# the same loop making each process the three entries ssim makes a member (the file
# system's own share). The folders go under $TMPDIR (a file system of your choice);
# TRACE=0 leaves the counting out.
#   tests/bench/bench_member_files.sh [N] [D]      (after scripts/build.sh; N=200, D=20000)
set -euo pipefail
n=${1:-200}
deleted=${2:-20000}
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
baseline=$root/build/tests/bench/spawn_baseline
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SSIM_STATE_HOME=$work/state
experiment() {  # PATH N -> an experiment file
  cat > "$work/experiment.yaml" <<YAML
experiment: {name: bench, path: $1}
ensembles:
  - {name: m, exe: /bin/true, replicas: $2}
YAML
}

calls=openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,stat,lstat,newfstatat,statx,access,faccessat,faccessat2
count() {  # TRACE_PREFIX N EXPERIMENT_PATH LABEL
  /usr/bin/python3 - "$@" <<'PY'
import glob, re, sys
trace, n, exp, label = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
counts = {"created": 0, "renamed": 0, "unlinked": 0, "stat": 0, "absent": 0}
created_in_members = 0
by_name = {}
absent_by_name = {}  # lookups of files that are not there: on a parallel file system, each a round trip too
# One file per process (-ff): no call is split into "unfinished" and "resumed" halves,
# which a shared file makes of calls that overlap, and which the pattern would not count.
lines = (line for path in glob.glob(trace + ".*") for line in open(path, errors="replace"))
for line in lines:
    m = re.match(r"(\w+)\((.*)\)\s+=\s+(-?\d+)", line)
    if not m:
        continue
    call, args = m.group(1), m.group(2)
    if int(m.group(3)) < 0:
        if "ENOENT" in line and exp in args:
            counts["absent"] += 1
            name = re.sub(r"\d+", "N", args.split('"')[1].rsplit("/", 1)[-1])
            absent_by_name[name] = absent_by_name.get(name, 0) + 1
        continue
    if call in ("openat", "open", "creat") and ("O_CREAT" in args or call == "creat"):
        kind = "created"
    elif call in ("mkdir", "mkdirat"):
        kind = "created"
    elif call.startswith("rename"):
        kind = "renamed"
    elif call in ("unlink", "unlinkat", "rmdir"):
        kind = "unlinked"
    else:
        kind = "stat"
    if exp not in args:
        continue  # the machine's own files (/proc, libraries): not the run's file system
    counts[kind] += 1
    if kind == "created" and f"{exp}/m/" in args:
        created_in_members += 1
        name = re.sub(r"\d+", "N", args.split('"')[1].rsplit("/", 1)[-1])
        by_name[name] = by_name.get(name, 0) + 1
print(f"{label}, {n} members: per member, in the experiment's folder (every process ssim started, the run's own files included)")
for k, v in counts.items():
    print(f"  {k:9s} {v / n:6.2f}")
print(f"  created under the members' folders: {created_in_members / n:.2f}"
      f" ({', '.join(f'{k} {v / n:.2f}' for k, v in sorted(by_name.items()))})")
print(f"  absent, by name: {', '.join(f'{k} {v / n:.2f}' for k, v in sorted(absent_by_name.items(), key=lambda kv: -kv[1])[:8])}")
PY
}

if [ "${TRACE:-1}" != 0 ]; then
  experiment "$work/traced" "$n"
  strace -f -ff -qq -o "$work/trace" -e trace=$calls "$ssim" run "$work/experiment.yaml" > /dev/null 2>&1
  count "$work/trace" "$n" "$work/traced" "local launcher"

  # Through node agents in a 4-node allocation of the test cluster, when it is up: the
  # agents and their keepers are traced through the nodes' slurmd (strace follows the steps
  # they start), ssim itself as above.
  if sinfo -h > /dev/null 2>&1 && [ "$(pgrep -c -x slurmd)" -ge 4 ]; then
    job=$(salloc -N4 --exclusive --no-shell -J ssim-bench-files 2>&1 | grep -o 'allocation [0-9]*' | grep -o '[0-9]*')
    slots=$(squeue -h -j "$job" -o %C)
    attach=()
    for pid in $(pgrep -x slurmd); do attach+=(-p "$pid"); done
    strace -f -ff -qq -o "$work/atrace" -e trace=$calls "${attach[@]}" &
    tracer=$!
    for pid in $(pgrep -x slurmd); do  # attached once each slurmd has a trace file
      until [ -e "$work/atrace.$pid" ]; do sleep 0.05; done
    done
    cat > "$work/agents.yaml" <<YAML
experiment: {name: bench, path: $work/agents, launcher: slurm}
ensembles:
  - {name: m, exe: /bin/true, replicas: $n}
YAML
    SLURM_JOB_ID=$job SLURM_JOB_NODELIST=$(squeue -h -j "$job" -o %N) SLURM_JOB_CPUS_PER_NODE="$((slots / 4))(x4)" \
      strace -f -ff -qq -o "$work/atrace-ssim" -e trace=$calls "$ssim" run "$work/agents.yaml" > /dev/null 2>&1
    scancel "$job"
    kill -INT "$tracer"
    wait "$tracer" 2> /dev/null || true
    for f in "$work"/atrace-ssim.*; do mv "$f" "$work/atrace.ssim-${f##*.}"; done
    count "$work/atrace" "$n" "$work/agents" "node agents (4 nodes)"
  fi
fi

now() { date +%s.%N; }
timed() {  # PATH -> seconds of ssim run
  experiment "$1" "$n"
  local t0 t1
  t0=$(now)
  "$ssim" run "$work/experiment.yaml" > /dev/null 2>&1
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
entries() {  # PATH -> seconds of the spawn loop that gives each process its three entries
  mkdir -p "$1"
  "$baseline" "$n" /bin/true "$1"
}
ratio() { echo "$1 / $2" | bc -l; }
# Three timings beside each other: ssim, the bare spawn loop (the machine's limit), and
# the spawn loop making each process the folder, .out and .err that ssim makes a member
# (the file system's own share: what a hand-written batch loop pays too).
report() {  # LABEL SSIM BARE ENTRIES
  printf '%s: %d members: ssim %.2f s, spawn loop %.2f s, with three entries each %.2f s: ratio %.2fx the loop, %.2fx the loop with entries (load %s)\n' \
    "$1" "$n" "$2" "$3" "$4" "$(ratio "$2" "$3")" "$(ratio "$2" "$4")" "$(cut -d' ' -f1 /proc/loadavg)"
}
base=$("$baseline" "$n" /bin/true)
settled=$(timed "$work/settled")
with=$(entries "$work/settled-loop")
report "settled disk" "$settled" "$base" "$with"
# D earlier members' folders (three entries each, as members leave them), deleted. Right
# after it, a file system may create files more slowly for a while (ext4 without a journal
# passes over inodes freed in the last minute), and whatever runs first pays the most: so
# this is done twice, ssim first once and the loop with entries first once.
delete_earlier() {  # FOLDER
  mkdir -p "$1"
  /usr/bin/python3 - "$1" "$deleted" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    d = os.path.join(root, f"m_{i}")
    os.mkdir(d)
    for name in (f"m_{i}.out", f"m_{i}.err"):
        open(os.path.join(d, name), "w").close()
PY
  sync
  rm -rf "$1"
}
delete_earlier "$work/old1"
base=$("$baseline" "$n" /bin/true)
fresh=$(timed "$work/after-delete")
with=$(entries "$work/after-delete-loop")
report "right after deleting $deleted members (ssim first)" "$fresh" "$base" "$with"
delete_earlier "$work/old2"
base=$("$baseline" "$n" /bin/true)
with=$(entries "$work/after-delete-loop2")
fresh=$(timed "$work/after-delete2")
report "right after deleting $deleted members (the loop first)" "$fresh" "$base" "$with"

