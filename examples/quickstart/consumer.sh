#!/bin/sh
# Reads what every producer in SSKEYIN wrote.
set -eu
host=${SSDB%:*}
port=${SSDB#*:}
total=0
for source in $(echo "$SSKEYIN" | tr , ' '); do
  n=$(redis-cli -h "$host" -p "$port" --no-auth-warning -a "$SSDB_PASSWORD" LLEN "$source.values")
  echo "$source: $n values"
  total=$((total + n))
done
echo "total: $total values"
