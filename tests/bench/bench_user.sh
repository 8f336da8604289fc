#!/usr/bin/env bash
# Benchmark: `ssim run FILE` timed from outside, exactly as a user times it (issue 43): one
# ensemble of N /bin/true on the local launcher with the defaults, a fresh folder each
# time on the file system the experiments are on, stdout and stderr to files, in
# alternating pairs with tests/bench/spawn_baseline N /bin/true (a posix_spawn loop: the
# machine's own limit). Prints, per size, each pair and the median ratio and rate.
#   tests/bench/bench_user.sh [SIZES] [PAIRS] [FOLDER]
#   tests/bench/bench_user.sh "1000 10000 100000" 3 ./bench-runs     (the defaults)
# FOLDER must be where users' experiments go (ext4 here, not a tmpfs); it is created,
# and each run's folder is removed only after the last pair (deleting many files makes the
# next minute's creations slower on ext4).
set -euo pipefail
sizes=${1:-"1000 10000 100000"}
pairs=${2:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
baseline=$root/build/tests/bench/spawn_baseline
[ -x "$ssim" ] && [ -x "$baseline" ] || { echo "bench_user: build first (scripts/build.sh)" >&2; exit 1; }
folder=$(mkdir -p "${3:-$PWD/bench-runs}" && cd "${3:-$PWD/bench-runs}" && pwd)
work=$(mktemp -d "$folder/user-XXXXXX")
# On ext4 without a journal, a file created in the minutes after many were deleted is
# slower (the kernel skips recently freed inodes: up to 3-4x for ssim, 5 files a member,
# none for the spawn loop); so is the next benchmark after this one's cleanup.
trap 'rm -rf "$work"; echo "removed the run folders: wait 6 minutes before timing file creation here again"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "folder $work ($(df -T "$work" | awk 'NR == 2 {print $2}')), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $sizes; do
  ratios=() rates=()
  for p in $(seq 1 "$pairs"); do
    dir=$work/n$n-p$p
    mkdir -p "$dir"
    cat > "$dir/e.yaml" <<YAML
experiment: {name: e}
ensembles:
  - {name: m, exe: /bin/true, replicas: $n}
YAML
    # The user's command, from the experiment's folder, its output in files.
    t0=$(now)
    (cd "$dir" && "$ssim" run e.yaml > run.out 2> run.err) || { echo "ssim run failed: $(tail -2 "$dir/run.err")"; exit 1; }
    t1=$(now)
    b=$("$baseline" "$n" /bin/true)
    s=$(echo "$t1 - $t0" | bc -l)
    done_=$(grep -c '"status": "completed"' < <(cd "$dir" && "$ssim" status e --json) || true)
    [ "$done_" = "$n" ] || { echo "only $done_ of $n completed"; exit 1; }
    ratios+=("$(echo "$s / $b" | bc -l)")
    rates+=("$(echo "$n / $s" | bc -l)")
    printf '  %6d members, pair %d: ssim run %7.2f s, spawn loop %7.2f s, ratio %.2fx\n' "$n" "$p" "$s" "$b" "${ratios[-1]}"
  done
  printf '%6d members: median ratio %.2fx, %.0f members/s (load %s)\n' "$n" \
    "$(printf '%s\n' "${ratios[@]}" | median)" "$(printf '%s\n' "${rates[@]}" | median)" "$(cut -d' ' -f1 /proc/loadavg)"
done
