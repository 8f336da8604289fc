#!/usr/bin/env bash
# Benchmark (issue 50): one SmartRedis program, unchanged, against Redis with RedisAI and
# against ssim's database through the SmartRedis door (password on, inference service
# beside it), in the same run: put_tensor / get_tensor of 1 KiB, 1 MiB and 64 MiB, and
# run_model of a small TorchScript model. Median microseconds per call in each of 5
# passes taken in turn (PASSES=N for another count); the median pass and the best, and
# ssim's speed as a ratio (above 1: ssim is faster).
#
# SmartRedis and RedisAI are not Debian packages: point at builds you made yourself.
#   SMARTREDIS_PYTHONPATH=DIR  (the folder holding the smartredis package)
#   REDISAI_MODULE=FILE        (redisai.so, with backends/redisai_torch beside it)
#   tests/bench/bench_smartredis.sh      (after scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
apps=$root/build/apps/ssim
: "${SMARTREDIS_PYTHONPATH:?set it to the folder holding a SmartRedis Python package}"
: "${REDISAI_MODULE:?set it to a RedisAI module (redisai.so) built with its TORCH backend}"
[ -x "$apps/ssim-infer" ] || { echo "no $apps/ssim-infer: build with libtorch-dev installed" >&2; exit 2; }
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
dir=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
/usr/bin/python3 - "$dir/model.pt" <<'PY'
import sys, torch
torch.manual_seed(0)
torch.jit.save(torch.jit.script(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())), sys.argv[1])
PY
wait_port() { for _ in $(seq 200); do redis-cli -p "$1" ${2:+-a "$2"} --no-auth-warning ping 2>/dev/null | grep -q PONG && return; sleep 0.05; done; exit 1; }

# Redis with RedisAI, as SmartSim runs it: no password, the module loaded.
rai_port=$(free_port)
redis-server --port "$rai_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
  --loadmodule "$REDISAI_MODULE" > "$dir/redisai.log" 2>&1 &
pids+=($!)
wait_port "$rai_port"

# ssim's database as ssim runs it: a password, ssim-infer beside it (apps/ssim/cmd_database.cpp).
password=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
ssim_port=$(free_port)
redis-server --port "$ssim_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --requirepass "$password" \
  --unixsocket "$dir/redis.sock" --unixsocketperm 700 > "$dir/ssim-db.log" 2>&1 &
pids+=($!)
wait_port "$ssim_port" "$password"
SSDB_PASSWORD=$password "$apps/ssim-infer" --db "127.0.0.1:$ssim_port" --db-socket "$dir/redis.sock" --listen 127.0.0.1 \
  --run-dir "$dir" > "$dir/inference.log" 2>&1 &
pids+=($!)
for _ in $(seq 200); do [ -f "$dir/inference.json" ] && break; sleep 0.05; done

run() {  # redisai|ssim -> the program's lines
  if [ "$1" = redisai ]; then
    SSDB=127.0.0.1:$rai_port SR_DB_TYPE=Standalone SR_LOG_LEVEL=QUIET PYTHONPATH=$SMARTREDIS_PYTHONPATH \
      /usr/bin/python3 "$root/tests/bench/smartredis_bench.py" "$dir/model.pt"
  else
    SSDB=127.0.0.1:$ssim_port SSDB_PASSWORD=$password SR_LOG_LEVEL=QUIET PYTHONPATH=$SMARTREDIS_PYTHONPATH \
      "$apps/ssim-door" -- /usr/bin/python3 "$root/tests/bench/smartredis_bench.py" "$dir/model.pt"
  fi
}
passes=${PASSES:-5}
for pass in $(seq "$passes"); do  # in turn, so that the machine's moods fall on both alike
  for way in redisai ssim; do run "$way" > "$dir/$way.$pass"; done
done
echo "SmartRedis (Python) against Redis+RedisAI and against ssim's door; median us per call over $passes passes"
echo "taken in turn: the median pass, and the best (a VM's wake-up latency flips between regimes from pass to pass)"
printf '%-16s %12s %12s %8s   %12s %12s %8s\n' call redisai ssim ratio "best redisai" "best ssim" ratio
while read -r what size _; do
  pick() {  # way median|best
    cat "$dir/$1".* | awk -v w="$what" -v s="$size" '$1 == w && $2 == s { print $3 }' | sort -g |
      awk -v how="$2" '{ v[NR] = $1 } END { print (how == "best" ? v[1] : v[int((NR + 1) / 2)]) }'
  }
  a=$(pick redisai median); b=$(pick ssim median); c=$(pick redisai best); d=$(pick ssim best)
  printf '%-16s %12.1f %12.1f %7.2fx   %12.1f %12.1f %7.2fx\n' "$what $size" "$a" "$b" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')" "$c" "$d" "$(awk -v a="$c" -v b="$d" 'BEGIN { print a / b }')"
done < "$dir/redisai.1"
