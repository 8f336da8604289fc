#!/usr/bin/env bash
# The GPU device check (tests/device/README.md). Builds ssim's Python module for this
# machine's python3, runs tests/device/experiment.yaml on the local launcher with the
# carried ssim and redis-server, checks that the trainer trained on exactly the GPU ssim
# gave it and reported metrics, and prints one verdict line:
#   DEVICE CHECK PASS: ...   or   DEVICE CHECK FAIL: ...
#   tests/device/run_check.sh [BUNDLE]        (default .device, from tests/device/bundle.sh)
# Without a GPU (a rehearsal) it says REHEARSAL and trains on the CPU, with a pretend device.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$(cd "${1:-$root/.device}" && pwd) || { echo "DEVICE CHECK FAIL: no bundle (tests/device/bundle.sh)"; exit 1; }
py=${PYTHON:-python3}
start=$(date +%s)
work=${DEVICE_CHECK_DIR:-/tmp/ssim-device-check}
log=${OUT:-$work}/device-check.log
mkdir -p "$(dirname "$log")"
verdict() {  # PASS|FAIL TEXT
  echo "DEVICE CHECK $1: $2 ($(( $(date +%s) - start )) s)"
  [ "$1" = PASS ] || { echo "--- the last lines of $log:"; tail -40 "$log"; }
  [ "$1" = PASS ]; exit $?
}
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  gpu=1 kind=DEVICE
else
  gpu=0 kind=REHEARSAL
fi
{
  echo "== $kind on $(uname -n): $($py --version 2>&1) at $(command -v "$py"); $(ldd --version 2>&1 | head -1)"
  [ "$gpu" = 1 ] && nvidia-smi -L
} >"$log" 2>&1

# 1. The Python module for this interpreter, from the checkout's sources (16 at a time).
pkg=$bundle/build/python/ssim
mkdir -p "$pkg" "$work/obj"
cp "$root"/python/ssim/*.py "$pkg/"
ext=$($py -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
includes=$($py -m pybind11 --includes 2>/dev/null) ||
  includes="-I$($py -c 'import sysconfig; print(sysconfig.get_paths()["include"])') -I/usr/include"
sources=("$root/python/module.cpp")
for f in dtype wire_format hash_slot tensor dataset connection router bulk client client_datasets client_servers \
         layout metrics model_record client_models rank_info; do sources+=("$root/lib/client/$f.cpp"); done
objs=()
for s in "${sources[@]}"; do
  o=$work/obj/$(basename "$s" .cpp).o
  objs+=("$o")
  g++ -std=c++20 -O1 -fPIC -fvisibility=hidden $includes -I"$root" -I"$bundle/include" -c "$s" -o "$o" >>"$log" 2>&1 &
done
wait
g++ -shared -o "$pkg/_ssim$ext" "${objs[@]}" -L"$bundle/lib" -lhiredis -Wl,-rpath,"$bundle/lib" >>"$log" 2>&1 ||
  verdict FAIL "the Python module did not build for $py"
export PATH=$bundle/bin:$PATH LD_LIBRARY_PATH=$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SSIM_PYTHON=$(command -v "$py")
PYTHONPATH=$bundle/build/python "$py" -c "import ssim, ssim.metrics, ssim.distributed" >>"$log" 2>&1 ||
  verdict FAIL "the Python module does not import in $py"
ssim=$bundle/build/apps/ssim/ssim
"$ssim" --version >>"$log" 2>&1 || verdict FAIL "the carried ssim does not run here (its libraries?)"
echo "== module built in $(( $(date +%s) - start )) s" >>"$log"

# 2. The experiment: producers stream, the trainer trains on the GPU ssim gave it.
rm -rf "$work/run"; mkdir -p "$work/run"
cp "$root"/tests/device/{experiment.yaml,producer.py,trainer.py} "$work/run/"
if [ "$gpu" = 1 ]; then export DEVICE_CHECK_WANT_CUDA=1; else export SSIM_GPUS=0; fi
(cd "$work/run" && timeout 300 "$ssim" run experiment.yaml) >>"$log" 2>&1
rc=$?
(cd "$work/run" && "$ssim" status device_check) >>"$log" 2>&1
[ "$rc" = 0 ] || verdict FAIL "ssim run exited $rc"
seen=$work/run/device_check/trainer/seen.json
[ -f "$seen" ] || verdict FAIL "the trainer wrote no seen.json"
metrics=$(ls "$work"/run/device_check/trainer/metrics.*.ndjson 2>/dev/null | head -1)
[ -n "$metrics" ] || verdict FAIL "the trainer reported no metrics"
points=$(wc -l <"$metrics")
# 3. The device it saw is the one ssim gave it, and only that one.
# What ssim started the trainer with: the experiment's launch log (docs/layout.md).
given=$("$py" - "$work/run/device_check" <<'PY'
import json, os, sys
exp = sys.argv[1]
bases, env = {}, {}
for line in open(os.path.join(exp, ".ssim/launches.ndjson")):
    r = json.loads(line)
    if "run_dir" not in r:
        bases[r["base"]] = r["env"]
    elif os.path.basename(r["run_dir"]) == "trainer":
        env = dict(kv.split("=", 1) for kv in bases[r["base"]])
        env.update(dict(r["env"]))
print(env.get("CUDA_VISIBLE_DEVICES", ""))
PY
)
result=$("$py" - "$seen" "$given" "$gpu" <<'PY'
import json, subprocess, sys
seen, given, gpu = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3] == "1"
problems = []
if seen["cuda_visible_devices"] != given:
    problems.append(f"CUDA_VISIBLE_DEVICES {seen['cuda_visible_devices']!r}, ssim gave {given!r}")
if gpu:
    if not seen["device"].startswith("cuda"):
        problems.append(f"trained on {seen['device']}")
    if seen["device_count"] != 1:
        problems.append(f"saw {seen['device_count']} devices, not the one given")
    uuids = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader"], capture_output=True,
                           text=True).stdout.strip().splitlines()
    want = {i.strip(): u.strip() for i, u in (l.split(",") for l in uuids)}.get(given, "")
    if want and seen.get("uuid") and seen["uuid"].replace("GPU-", "") not in want:
        problems.append(f"device uuid {seen['uuid']} is not nvidia-smi's {want} for index {given}")
if seen["accuracy"] < 0.9:
    problems.append(f"accuracy {seen['accuracy']:.2f}")
print("; ".join(problems) if problems else
      f"trained on {seen['device']} {seen.get('name', '(CPU rehearsal)')} = device {given} given by ssim, "
      f"accuracy {seen['accuracy']:.3f}, {seen['steps']} steps")
PY
)
case "$result" in
  "trained on"*) ;;
  *) verdict FAIL "$result" ;;
esac

# 4. torchrun as ssim starts it (run: {torchrun: 2}): an env:// DDP script, two workers,
# the weights one process trains on the same global batch.
torchrun_bin=$(dirname "$(command -v "$py")")/torchrun
[ -x "$torchrun_bin" ] || torchrun_bin=$(command -v torchrun || true)
tr_result="torchrun: not found"
if [ -n "$torchrun_bin" ]; then
  rm -rf "$work/tr"; mkdir -p "$work/tr/single"
  cp "$root/tests/fixtures/trainers/train_dist.py" "$work/tr/"
  cat >"$work/tr/experiment.yaml" <<YAML
experiment: {name: tr}
models:
  - name: train
    exe: $torchrun_bin
    args: [train_dist.py]
    run: {torchrun: 2}
    files: {copy: [train_dist.py]}
    env: {OMP_NUM_THREADS: "1"}
YAML
  (cd "$work/tr" && timeout 180 "$ssim" run experiment.yaml) >>"$log" 2>&1
  (cd "$work/tr/single" && RANK=0 WORLD_SIZE=1 timeout 120 "$py" ../train_dist.py) >>"$log" 2>&1
  tr_result=$("$py" - "$work/tr" <<'PY'
import json, sys, os
d = sys.argv[1]
try:
    ranks = [json.load(open(os.path.join(d, "tr/train", f"rank{r}.json"))) for r in (0, 1)]
    one = json.load(open(os.path.join(d, "single/rank0.json")))["weights"]
except (OSError, ValueError) as e:
    print(f"torchrun: no result ({e})"); sys.exit()
flat = lambda w: [x for row in w for x in row]
diff = max(abs(a - b) for a, b in zip(flat(ranks[0]["weights"]), flat(one)))
ok = [r["WORLD_SIZE"] for r in ranks] == ["2", "2"] and diff < 1e-5
print(("torchrun ok" if ok else "torchrun: wrong") + f": 2 workers, weights within {diff:.1e} of one process")
PY
)
fi
case "$tr_result" in
  "torchrun ok"*) verdict PASS "$kind: $result, $points metric points; $tr_result" ;;
  *) if [ "$gpu" = 1 ]; then verdict FAIL "$tr_result"; else verdict PASS "$kind: $result, $points metric points; $tr_result (Debian's torchrun fails on Python 3.11)"; fi ;;
esac
