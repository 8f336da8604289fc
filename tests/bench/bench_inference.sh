#!/usr/bin/env bash
# Benchmark (issue 26): run_model through the inference service against the same
# TorchScript model called in-process with libtorch, in the same run, on one
# redis-server with ssim-infer beside it (loopback). A small MLP (256 -> 256 -> 256,
# float32): 1 row = 1 KiB in and 1 KiB out; 1024 rows = 1 MiB. Target: run_model's
# overhead over the in-process call under 200 us for 1 KiB. Then calls per second of 8
# concurrent callers (each: put, run_model, get of one row), without and with batching.
#   tests/bench/bench_inference.sh      (after scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/tests/bench
service=$root/build/apps/ssim/ssim-infer
[ -x "$service" ] || { echo "no $service: build with libtorch-dev installed" >&2; exit 2; }
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
# As the database step starts them (apps/ssim/cmd_database.cpp): the server also on a
# Unix socket, the service's way to it.
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no \
  --unixsocket "$dir/redis.sock" --unixsocketperm 700 > "$dir/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do [ -S "$dir/redis.sock" ] && break; sleep 0.05; done
"$service" --db "127.0.0.1:$port" --db-socket "$dir/redis.sock" --listen 127.0.0.1 --run-dir "$dir" \
  > "$dir/inference.log" 2>&1 &
infer=$!
trap 'kill $infer $server 2>/dev/null; wait $infer $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 200); do [ -f "$dir/inference.json" ] && break; sleep 0.05; done
[ -f "$dir/inference.json" ] || { cat "$dir/inference.log"; exit 1; }
address=127.0.0.1:$port
/usr/bin/python3 - "$dir/mlp.pt" <<'PY'
import sys, torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256))
torch.jit.save(torch.jit.script(m.eval()), sys.argv[1])
PY
model=$dir/mlp.pt

echo "redis-server and ssim-infer on 127.0.0.1; microseconds per call, median and p99 (best of 3 passes)"
printf '%-7s %-30s %10s %10s %16s\n' size way median p99 "over in-process"
best() {  # command... -> the pass with the lowest median, of 3
  local out best_out="" best_median=1e30
  for _ in 1 2 3; do
    out=$("$@")
    if awk -v a="${out%% *}" -v b="$best_median" 'BEGIN { exit !(a < b) }'; then best_out=$out; best_median=${out%% *}; fi
  done
  echo "$best_out"
}
for spec in "1 KiB:1:3000" "1 MiB:1024:30"; do
  IFS=: read -r label rows reps <<< "$spec"
  read -r base base99 < <(best "$bin/inference_bench" "$address" "$model" inprocess "$rows" "$reps")
  printf '%-7s %-30s %10s %10s %16s\n' "$label" "in-process libtorch (C++)" "$base" "$base99" "-"
  for way in remote roundtrip; do
    read -r med p99 < <(best "$bin/inference_bench" "$address" "$model" "$way" "$rows" "$reps")
    name=$([ "$way" = remote ] && echo "run_model (C++)" || echo "put + run_model + get (C++)")
    printf '%-7s %-30s %10s %10s %16s\n' "$label" "$name" "$med" "$p99" "$(awk -v a="$med" -v b="$base" 'BEGIN { printf "+%.0f us", a - b }')"
    if [ "$way" = remote ]; then
      read -r fmed fp99 < <(best "$bin/inference_bench_fortran" "$address" "$reps")
      printf '%-7s %-30s %10s %10s %16s\n' "$label" "run_model (Fortran)" "$fmed" "$fp99" "$(awk -v a="$fmed" -v b="$base" 'BEGIN { printf "+%.0f us", a - b }')"
    fi
  done
done

echo
echo "8 concurrent callers, 1 KiB row each (put + run_model + get), calls per second (best of 3)"
for batch in 0 8; do
  top=0
  for _ in 1 2 3; do
    r=$("$bin/inference_bench" "$address" "$model" callers 8 "$batch" 400)
    top=$(awk -v a="$top" -v b="$r" 'BEGIN { print (b > a ? b : a) }')
  done
  [ "$batch" = 0 ] && unbatched=$top
  printf '  %-28s %8s calls/s\n' "$([ "$batch" = 0 ] && echo "no batching" || echo "batch_size 8 (min 0)")" "$top"
done
awk -v a="$top" -v b="$unbatched" 'BEGIN { printf "  batching: %.2fx\n", a / b }'
