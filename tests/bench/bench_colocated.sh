#!/usr/bin/env bash
# Benchmark: what a colocated database's Unix socket buys over loopback TCP,
# 1 KiB put/get through the ssim client, both to one redis-server in the same run.
#   tests/bench/bench_colocated.sh      (after scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --unixsocket "$dir/db.sock" --unixsocketperm 700 --save '' \
  --appendonly no --dir "$dir" --daemonize no > "$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do redis-cli -s "$dir/db.sock" ping > /dev/null 2>&1 && break; sleep 0.05; done
"$root/build/tests/bench/colocated_bench" "unix:$dir/db.sock" "127.0.0.1:$port"
