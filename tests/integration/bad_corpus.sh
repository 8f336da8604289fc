#!/usr/bin/env bash
# Every file in tests/fixtures/bad must make `ssim validate` and `ssim run` print exactly
# the line in its .err file, exit 2, and write nothing to disk.
set -u
ssim=$1
corpus=$(cd "$(dirname "$0")/../fixtures/bad" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
count=0
before=$(cd "$corpus" && find . | sort | md5sum)
for yaml in "$corpus"/*.yaml; do
  name=$(basename "$yaml")
  expected=$(cat "${yaml%.yaml}.err")
  count=$((count + 1))
  for verb in validate run; do
    # Relative file name, as a user would type it; cwd is an empty scratch dir so that
    # anything written shows up there.
    got=$(cd "$scratch" && "$ssim" $verb "$(realpath --relative-to="$scratch" "$yaml")" 2>&1 >/dev/null)
    rc=$?
    got=${got//"$(realpath --relative-to="$scratch" "$corpus")/"/}
    if [ "$rc" -ne 2 ] || [ "$got" != "$expected" ]; then
      echo "FAIL $verb $name: rc=$rc"
      echo "  expected: $expected"
      echo "  got:      $got"
      failures=$((failures + 1))
    fi
    if [ -n "$(ls -A "$scratch")" ]; then
      echo "FAIL $verb $name wrote to disk: $(ls -A "$scratch")"
      failures=$((failures + 1))
      rm -rf "${scratch:?}"/*  "${scratch:?}"/.[!.]*
    fi
  done
done
after=$(cd "$corpus" && find . | sort | md5sum)
[ "$before" = "$after" ] || { echo "FAIL: the corpus directory changed"; failures=$((failures + 1)); }
echo "$count bad files, $failures failures"
[ "$count" -ge 120 ] && [ "$failures" -eq 0 ]
