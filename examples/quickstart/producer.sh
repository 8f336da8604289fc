#!/bin/sh
# Writes COUNT values under this member's key prefix (SSKEYOUT), using SSDB and
# SSDB_PASSWORD that ssim provides.
set -eu
count=$1
host=${SSDB%:*}
port=${SSDB#*:}
i=0
while [ "$i" -lt "$count" ]; do
  redis-cli -h "$host" -p "$port" --no-auth-warning -a "$SSDB_PASSWORD" \
    RPUSH "$SSKEYOUT.values" "$SSKEYOUT-$i" > /dev/null
  i=$((i + 1))
done
echo "$SSIM_ENTITY wrote $count values to $SSDB"
