#!/usr/bin/env bash
# Benchmark (issue 54 item 2): ssim status on a million-member experiment. A real run of
# 1,000 /bin/true members, whose manifest is then grown to MEMBERS entity lines (each a
# copy of a real one, renamed; their run directories are not made: a finished member's
# status is read from the manifest alone), then the time and peak memory of
# `ssim status --summary` and `ssim status --json`, beside reading the manifest's bytes
# (`wc -l`) as the baseline: the ratio says how many times a plain read ssim takes.
# Goals: --summary under 2 s, --json under 10 s.
#   tests/bench/bench_status_scale.sh [MEMBERS=1000000]   (after scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ssim=$root/build/apps/ssim/ssim
members=${1:-1000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export SSIM_STATE_HOME=$dir/state
cat > "$dir/exp.yaml" <<YAML
experiment: {name: big, path: $dir/big}
ensembles:
  - {name: e, exe: /bin/true, replicas: 1000}
YAML
"$ssim" run "$dir/exp.yaml" > /dev/null 2>&1
manifest=$dir/big/.ssim/manifest.json
/usr/bin/python3 - "$manifest" "$members" <<'PY'
import sys
path, members = sys.argv[1], int(sys.argv[2])
text = open(path).read()
head, rest = text.split(',\n "entities": [\n', 1)
line = rest.split('\n', 1)[0].strip().rstrip(',')
with open(path, 'w') as out:
    out.write(head + ',\n "entities": [\n')
    for i in range(members):
        out.write('  ' + line.replace('"e_0"', '"e_%d"' % i).replace('/e/e_0"', '/e/e_%d"' % i)
                  + (',\n' if i < members - 1 else '\n'))
    out.write(' ]\n}\n')
PY
echo "ssim status of $members finished members ($(du -h "$manifest" | cut -f1) manifest); seconds, best of 3"
best() {  # best wall time of 3 runs of "$@" (output discarded), and the peak RSS of the last
  local b="" t
  for _ in 1 2 3; do
    t=$( { /usr/bin/time -f "%e %M" "$@" > /dev/null; } 2>&1 | tail -1)
    if [ -z "$b" ] || awk -v a="${t% *}" -v b="${b% *}" 'BEGIN{exit !(a < b)}'; then b=$t; fi
  done
  echo "$b"
}
base=$(best wc -l "$manifest")
for what in --summary --json; do
  r=$(best "$ssim" status "$dir/big" "$what")
  awk -v w="$what" -v t="${r% *}" -v m="${r#* }" -v b="${base% *}" \
    'BEGIN{printf "%-10s %6.2f s  %6.0f MiB peak  %5.1fx reading the manifest (%.2f s)\n", w, t, m/1024, t/b, b}'
done
