"""Helpers for ssim's integration tests: run the real ssim binary on real processes,
wait on conditions with deadlines, and clean up every process a test started."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

SSIM = os.environ.get("SSIM", os.path.join(os.path.dirname(__file__), "../../build/apps/ssim/ssim"))
FAKE_HOST = os.path.abspath(os.path.join(os.path.dirname(__file__), "../fixtures/fake-sched/fake-host"))


def wait_for(condition, timeout=20.0, what="condition"):
    """Polls `condition` until it returns a truthy value or the deadline passes. `what`: a
    text, or a callable whose text (read at the deadline) says what was seen instead."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what() if callable(what) else what}")
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def processes_with_env(name, value):
    """Pids whose environment holds NAME=VALUE: the process table, not the pids we know."""
    needle = f"{name}={value}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in env and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def kill_group_if_of(pgid, exp_id):
    """SIGKILL to process group `pgid` only while its leader is a process of experiment
    `exp_id`: a pid read from a status file may have ended and been reused since (pids
    wrap at 32768 here, and a suite starts many thousands), by another test's process.
    Returns whether it was sent."""
    if pgid in processes_with_env("SSIM_EXPERIMENT_ID", exp_id):
        try:
            os.killpg(pgid, signal.SIGKILL)
            return True
        except ProcessLookupError:
            pass
    return False


def kill_processes_under(folder):
    """Kills every process of every experiment under `folder` (by its id in their
    environment) and every process running in a folder under it."""
    # First the ssim that tracks each run (a detached monitor outlives the test's own
    # calls): left alone, it would write the manifest again after the folder is removed.
    for root, dirs, files in os.walk(folder):
        if "lock" in files and root.endswith(".ssim"):
            try:
                with open(os.path.join(root, "lock")) as f:
                    pid, _host, _role, ticks = f.read().split()[:4]
                with open(f"/proc/{pid}/stat") as f:
                    alive = f.read().rsplit(")", 1)[1].split()[19] == ticks
            except (OSError, ValueError, IndexError):
                continue
            if alive:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    continue
                deadline = time.monotonic() + 5
                while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
                    time.sleep(0.01)  # the kill is asynchronous: gone before the folder goes
    for root, dirs, files in os.walk(folder):
        if "manifest.json" in files and root.endswith(".ssim"):
            try:
                with open(os.path.join(root, "manifest.json")) as f:
                    exp_id = json.load(f).get("id", "")
            except (OSError, ValueError):
                continue
            for pid in processes_with_env("SSIM_EXPERIMENT_ID", exp_id):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    # redis-server writes its title over its environment: found by where it runs.
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if cwd.startswith(folder + "/"):
            try:
                os.kill(int(entry), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


class SsimTestCase(unittest.TestCase):
    """A temporary directory as cwd and state home; every experiment started in it is
    stopped and every process carrying its id is killed at the end, pass or fail."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ssim-it-")
        self.env = dict(os.environ, SSIM_STATE_HOME=os.path.join(self.dir, "state"))
        self.popens = []
        self.addCleanup(self._cleanup)

    def _cleanup(self):
        for p in self.popens:
            if p.poll() is None:
                p.kill()
            p.communicate()
        kill_processes_under(self.dir)
        if not os.environ.get("SSIM_KEEP_TEST_DIRS"):
            shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def ssim(self, *args, timeout=60, check=None):
        """Runs ssim to completion; returns CompletedProcess (text)."""
        p = subprocess.run([SSIM, *args], cwd=self.dir, env=self.env, capture_output=True,
                           text=True, timeout=timeout)
        if check is not None:
            self.assertEqual(p.returncode, check, f"ssim {' '.join(args)}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p

    def ssim_background(self, *args):
        p = subprocess.Popen([SSIM, *args], cwd=self.dir, env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.popens.append(p)
        return p

    def ssim_elsewhere(self, host, *args):
        """Starts ssim on another "host": its own PID and UTS namespace named `host`
        (tests/fixtures/fake-sched/fake-host), whose processes this one cannot see by
        pid, as a login node cannot see a compute node's. Returns (Popen, a function
        giving ssim's exit code once it ended, else None)."""
        result = os.path.join(self.dir, f".{host}.{len(self.popens)}.result")
        p = subprocess.Popen(["unshare", "--pid", "--uts", "--mount", "--fork", "--kill-child", "--mount-proc", FAKE_HOST, host, result,
                              "--", SSIM, *args], cwd=self.dir, env=self.env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.popens.append(p)

        def exit_code():
            try:
                with open(result) as f:
                    return int(f.read())
            except (OSError, ValueError):
                return None
        return p, exit_code

    def run_until(self, path, entity, condition=lambda e: e["status"] == "running", what="running"):
        """Starts `ssim run experiment.yaml` in the background and waits until `entity`
        of the experiment at `path` meets `condition`; returns the Popen."""
        run = self.ssim_background("run", "experiment.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, path, ".ssim/manifest.json")), what="manifest")
        wait_for(lambda: condition(self.status()[1][entity]), what=f"{entity} {what}")
        return run

    def status(self, exp="experiment.yaml"):
        p = self.ssim("status", exp, "--json")
        self.assertIn(p.returncode, (0, 1), p.stderr)  # 1: an entity failed
        doc = json.loads(p.stdout)
        return doc, {e["name"]: e for e in doc["entities"]}

    def manifest(self, path):
        with open(os.path.join(self.dir, path, ".ssim/manifest.json")) as f:
            return json.load(f)


def launched(experiment_dir, run_dir):
    """What the job of `run_dir` was last started with, from the experiment's launch log
    (docs/layout.md): (argv, environment as a dict)."""
    bases, last = {}, None
    with open(os.path.join(experiment_dir, ".ssim", "launches.ndjson")) as f:
        for line in f:
            record = json.loads(line)
            if "run_dir" not in record:
                bases[record["base"]] = record["env"]
            elif os.path.realpath(record["run_dir"]) == os.path.realpath(run_dir):
                last = record
    if last is None:
        raise AssertionError(f"no launch of {run_dir} in {experiment_dir}")
    env = dict(kv.split("=", 1) for kv in bases[last["base"]])
    env.update(dict(last["env"]))
    return last["argv"], env


def job_record(run_dir):
    """How the job of `run_dir` stands, as ssim reads it (docs/layout.md): its status file
    when there is one, else its keeper's record of its latest launch in the experiment's
    keeper journals; None when neither says anything yet."""
    try:
        with open(os.path.join(run_dir, ".ssim-status.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        pass
    up = os.path.dirname(os.path.abspath(run_dir))
    while not os.path.isdir(os.path.join(up, ".ssim")):
        if up == os.path.dirname(up):
            return None
        up = os.path.dirname(up)
    ssim_dir = os.path.join(up, ".ssim")
    wanted = os.path.abspath(run_dir)
    latest = -1
    try:
        with open(os.path.join(ssim_dir, "launches.ndjson"), "rb") as f:
            offset = 0
            for line in f:
                if line.startswith(b'{"run_dir":') and json.loads(line)["run_dir"] == wanted:
                    latest = offset
                offset += len(line)
    except OSError:
        pass
    best = None
    keepers = os.path.join(ssim_dir, "keepers")
    for name in os.listdir(keepers) if os.path.isdir(keepers) else []:
        with open(os.path.join(keepers, name)) as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # cut short by a full disk, or met halfway through its rewrite
                if record.get("run_dir") == wanted and record["launch"] >= latest and \
                        (best is None or record["launch"] >= best["launch"]):
                    best = record
    return best


def free_port(span=1):
    """A base port with `span` consecutive free ports (and their +10000 bus ports).
    From 10000 to 19999: below the kernel's ephemeral range (a port free now but in that
    range can be taken a moment later by any connection: srun, a client) and below the
    ports ssim picks itself for `port: auto` and for the databases of the other tests
    running beside this one (20000 and up), either of which could take it between this
    check and the database's start."""
    import random
    import socket
    top = 19999 - span
    for _ in range(200):
        base = random.randint(10000, top)
        ok = True
        for port in list(range(base, base + span)) + list(range(base + 10000, base + 10000 + span)):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no free port")
