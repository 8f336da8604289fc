#!/usr/bin/env bash
# Benchmark (issue 54): a large ensemble whose `ssim run` is killed with kill -9 halfway,
# then `ssim status --summary` and `ssim run --resume` of the rest. N members of /bin/true
# on the local launcher; the kill comes once N/2 of them ended (their keepers' records).
# Printed: the status and the resume's times, the resume's time before its first
# member started (reading what the dead run left), and the resume against a fresh run of
# the same N/2 members in the same script (the baseline).
#   tests/bench/bench_resume_members.sh [N]     (after scripts/build.sh; N=100000)
set -euo pipefail
n=${1:-100000}
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
work=$(mktemp -d)
trap 'pkill -9 -f "$work/" 2>/dev/null || true; rm -rf "$work"' EXIT
export SSIM_STATE_HOME=$work/state
experiment() {  # FILE PATH N
  cat > "$1" <<YAML
experiment: {name: big, path: $2}
ensembles:
  - {name: m, exe: /bin/true, replicas: $3}
YAML
}
now() { date +%s.%N; }
ended() { cat "$work/big/.ssim/keepers/"*.ndjson 2>/dev/null | grep -c '"state":"exited"' || true; }

experiment "$work/big.yaml" "$work/big" "$n"
"$ssim" run "$work/big.yaml" --max-members "$n" > /dev/null 2>&1 &
run=$!
deadline=$(( $(date +%s) + 3600 ))
until [ "$(ended)" -ge $((n / 2)) ]; do
  [ "$(date +%s)" -lt "$deadline" ] || { echo "the run did not reach $((n / 2)) ends" >&2; exit 1; }
  sleep 0.5
done
kill -9 "$run"
wait "$run" 2> /dev/null || true
printf 'killed with %d of %d ended\n' "$(ended)" "$n"

t0=$(now)
"$ssim" status "$work/big" --summary > /dev/null 2>&1 || true
t1=$(now)
printf 'ssim status --summary after the kill: %.2f s\n' "$(echo "$t1 - $t0" | bc -l)"

t0=$(now)
/usr/bin/time -f %M -o "$work/resume.rss" "$ssim" run "$work/big.yaml" --resume --max-members "$n" > /dev/null 2> "$work/resume.err"
t1=$(now)
resume=$(echo "$t1 - $t0" | bc -l)
ran=$(grep -o 'completed in [0-9.]* s' "$work/resume.err" | grep -o '[0-9.]*' | tail -1)
done=$("$ssim" status "$work/big" --summary 2>&1 | grep -o '[0-9]* completed' | head -1)
printf -- '--resume: %.2f s (%s after its start, so %.2f s before it), peak RSS %d MB; %s of %d\n' "$resume" "$ran" \
  "$(echo "$resume - $ran" | bc -l)" "$(( $(cat "$work/resume.rss") / 1024 ))" "$done" "$n"

experiment "$work/half.yaml" "$work/half" $((n - n / 2))
t0=$(now)
"$ssim" run "$work/half.yaml" --max-members "$n" > /dev/null 2>&1
t1=$(now)
fresh=$(echo "$t1 - $t0" | bc -l)
printf 'a fresh run of the %d left: %.2f s; --resume / fresh: %.2fx (load %s)\n' $((n - n / 2)) "$fresh" \
  "$(echo "$resume / $fresh" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
