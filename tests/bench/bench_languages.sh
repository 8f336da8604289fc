#!/usr/bin/env bash
# Benchmark: the C and Fortran clients against the C++ client they wrap, in
# the same run on one redis-server: put_tensor and unpack_tensor of one f64 tensor of
# 1 KiB, 1 MiB and 64 MiB (target: C and Fortran >= 90% of C++). Fortran is measured
# with a rank-1 array (stored as it is) and a rank-2 one (reordered both ways).
#   tests/bench/bench_languages.sh      (after scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/tests/bench
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize no \
  > "$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.05; done
address=127.0.0.1:$port

echo "redis-server on $address; MB/s of put / unpack (1 MB = 1e6 bytes), best of 3 passes"
echo "that take turns between the clients (each pass: best of 3 loops)"
printf '%-8s %-14s %10s %10s %8s %8s\n' size client put get put/C++ get/C++
clients=(C++ C Fortran-1d Fortran-2d)
measure() {  # client bytes reps -> "put_seconds get_seconds"
  case $1 in
    C++) "$bin/lang_bench_cpp" "$address" "$2" "$3" ;;
    C) "$bin/lang_bench_c" "$address" "$2" "$3" ;;
    Fortran-1d) "$bin/lang_bench_fortran" "$address" "$2" "$3" 1d ;;
    Fortran-2d) "$bin/lang_bench_fortran" "$address" "$2" "$3" 2d ;;
  esac
}
for spec in 1024:2000 1048576:200 67108864:4; do
  bytes=${spec%%:*}
  reps=${spec##*:}
  declare -A best_put=() best_get=()
  for _ in 1 2 3; do
    for client in "${clients[@]}"; do
      read -r put get < <(measure "$client" "$bytes" "$reps")
      best_put[$client]=$(awk -v a="${best_put[$client]:-1e30}" -v b="$put" 'BEGIN { print (b < a ? b : a) }')
      best_get[$client]=$(awk -v a="${best_get[$client]:-1e30}" -v b="$get" 'BEGIN { print (b < a ? b : a) }')
    done
  done
  for client in "${clients[@]}"; do
    awk -v s="$bytes" -v c="$client" -v r="$reps" -v p="${best_put[$client]}" -v g="${best_get[$client]}" \
      -v cp="${best_put[C++]}" -v cg="${best_get[C++]}" \
      'BEGIN { printf "%-8s %-14s %10.1f %10.1f %7.0f%% %7.0f%%\n", (s>=1048576 ? s/1048576 "MiB" : s/1024 "KiB"), c,
               s*r/p/1e6, s*r/g/1e6, 100*cp/p, 100*cg/g }'
  done
  unset best_put best_get
done
