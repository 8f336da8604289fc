#!/usr/bin/env bash
# Benchmark (issue 54): what one member costs the file system. An ensemble of N members
# of /bin/true on the local launcher, traced with strace (every process ssim starts, the
# members' own exec excepted), counted per member: entries created (files opened with
# O_CREAT, folders made), renames, unlinks, stats. Then timing: N members against the
# spawn loop on a settled disk, and again within a minute after deleting D earlier
# members' folders (what users do all day), with the load average.
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

experiment "$work/traced" "$n"
strace -f -ff -qq -o "$work/trace" -e trace=openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,stat,lstat,newfstatat,statx,access,faccessat,faccessat2 \
  "$ssim" run "$work/experiment.yaml" > /dev/null 2>&1
/usr/bin/python3 - "$work/trace" "$n" "$work/traced" <<'PY'
import glob, re, sys
trace, n, exp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
counts = {"created": 0, "renamed": 0, "unlinked": 0, "stat": 0}
created_in_members = 0
by_name = {}
# One file per process (-ff): no call is split into "unfinished" and "resumed" halves,
# which a shared file makes of calls that overlap, and which the pattern would not count.
lines = (line for path in glob.glob(trace + ".*") for line in open(path))
for line in lines:
    m = re.match(r"(\w+)\((.*)\)\s+=\s+(-?\d+)", line)
    if not m or int(m.group(3)) < 0:
        continue
    call, args = m.group(1), m.group(2)
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
    counts[kind] += 1
    if kind == "created" and f"{exp}/m/" in args:
        created_in_members += 1
        name = re.sub(r"\d+", "N", args.split('"')[1].rsplit("/", 1)[-1])
        by_name[name] = by_name.get(name, 0) + 1
print(f"members {n}: per member (every process ssim started, the run's own files included)")
for k, v in counts.items():
    print(f"  {k:9s} {v / n:6.2f}")
print(f"  created under the members' folders: {created_in_members / n:.2f}"
      f" ({', '.join(f'{k} {v / n:.2f}' for k, v in sorted(by_name.items()))})")
PY

now() { date +%s.%N; }
timed() {  # PATH -> seconds of ssim run
  experiment "$1" "$n"
  local t0 t1
  t0=$(now)
  "$ssim" run "$work/experiment.yaml" > /dev/null 2>&1
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
base=$("$baseline" "$n" /bin/true)
settled=$(timed "$work/settled")
printf 'settled disk: %d members %.2f s, spawn loop %.2f s, ratio %.2fx (load %s)\n' "$n" "$settled" "$base" \
  "$(echo "$settled / $base" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
# D earlier members' folders (three entries each, as members leave them), deleted.
mkdir -p "$work/old"
/usr/bin/python3 - "$work/old" "$deleted" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    d = os.path.join(root, f"m_{i}")
    os.mkdir(d)
    for name in (f"m_{i}.out", f"m_{i}.err"):
        open(os.path.join(d, name), "w").close()
PY
sync
rm -rf "$work/old"
base=$("$baseline" "$n" /bin/true)
fresh=$(timed "$work/after-delete")
printf 'right after deleting %d members: %d members %.2f s, spawn loop %.2f s, ratio %.2fx (load %s)\n' "$deleted" \
  "$n" "$fresh" "$base" "$(echo "$fresh / $base" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
