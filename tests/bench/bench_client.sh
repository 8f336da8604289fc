#!/usr/bin/env bash
# Benchmark: starts a redis-server on a free port and measures, in one run,
# the ssim client (C++ and Python), an ideal raw client, naive hiredis and redis-py.
#   tests/bench/bench_client.sh      (after scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no \
  --proto-max-bulk-len 2gb > "$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.05; done
echo "redis-server $(redis-server --version | grep -o 'v=[0-9.]*') on port $port, one connection per client"
"$root/build/tests/bench/client_bench" "$port"
PYTHONPATH=$root/build/python /usr/bin/python3 "$root/tests/bench/client_bench.py" "$port"
