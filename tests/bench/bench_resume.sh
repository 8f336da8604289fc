#!/usr/bin/env bash
# Benchmark: what --resume costs with a 1 GiB database. A producer fills the
# database with 1,024 tensors of 1 MiB; `ssim stop` saves it (SHUTDOWN SAVE into the
# shard's run directory); `ssim run --resume` starts the shard on that snapshot, and the
# rerun consumer reads every tensor back. Baseline, on the same file in the same run:
# redis-server's own SAVE, and a bare redis-server loading the dump until it answers.
#   tests/bench/bench_resume.sh [MiB]      (after scripts/build.sh; default 1024)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
mib=${1:-1024}
dir=$(mktemp -d)
export SSIM_STATE_HOME=$dir/state PYTHONPATH=$root/build/python
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cleanup() {
  (cd "$dir" && "$ssim" stop r > /dev/null 2>&1) || true
  [ -n "${raw:-}" ] && kill "$raw" 2>/dev/null && wait "$raw" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
now() { date +%s.%N; }

cat > "$dir/experiment.yaml" <<YAML
experiment: {name: r}
orchestrator: {port: $port, persist: true}
models:
  - name: fill
    exe: /usr/bin/python3
    args: [-c, "import ssim, numpy; c = ssim.Client(); rng = numpy.random.default_rng(0)\\nfor i in range($mib): c.put_tensor(f't{i}', rng.random(131072))"]
  - name: check
    after: [fill]
    exe: /bin/sh
    args: [-c, 'test -e ../go || exit 3; /usr/bin/python3 -c "import ssim; c = ssim.Client(); print(sum(c.get_tensor(f\"t{i}\").nbytes for i in range($mib)))"']
YAML
cd "$dir"
"$ssim" run experiment.yaml > /dev/null 2>&1 || true   # check fails on purpose: no ../go yet
echo "database filled with $mib MiB of tensors"

t0=$(now); "$ssim" stop r > /dev/null; t1=$(now)
dump=r/orchestrator/dump.rdb
printf 'ssim stop (SHUTDOWN SAVE): %.2f s, dump.rdb %s MiB\n' "$(echo "$t1 - $t0" | bc)" "$(( $(stat -c %s "$dump") / 1048576 ))"

touch r/go
t0=$(now); "$ssim" run experiment.yaml --resume > "$dir/resume.out" 2> "$dir/resume.err" || { cat "$dir/resume.err"; exit 1; }; t1=$(now)
ready=$(grep -o 'database ready at [^ ]* ([0-9]* ms)' "$dir/resume.err" | grep -o '[0-9]* ms')
printf 'ssim run --resume: database ready in %s (loading the snapshot), whole resume %.2f s\n' "$ready" "$(echo "$t1 - $t0" | bc)"
printf 'the rerun consumer read back %s bytes\n' "$("$ssim" logs r check)"
"$ssim" stop r > /dev/null

# Baseline: a bare redis-server on the same dump, and its own SAVE.
cp "$dump" "$dir/base.rdb"
rport=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
t0=$(now)
redis-server --port "$rport" --bind 127.0.0.1 --dir "$dir" --dbfilename base.rdb --save '' --appendonly no \
  > "$dir/raw.log" 2>&1 &
raw=$!
until [ "$(redis-cli -p "$rport" ping 2>/dev/null)" = PONG ]; do sleep 0.01; done
t1=$(now)
printf 'baseline redis-server loading it: %.2f s\n' "$(echo "$t1 - $t0" | bc)"
t0=$(now); redis-cli -p "$rport" save > /dev/null; t1=$(now)
printf 'baseline redis-cli SAVE: %.2f s\n' "$(echo "$t1 - $t0" | bc)"
