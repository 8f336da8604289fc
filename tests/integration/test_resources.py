"""Resources as HPC users expect them, on the local launcher with real
processes: setup lines before every step, run.time enforced, retries, CPUs and GPUs."""
import json
import os
import signal
import subprocess
import time
import unittest

from ssimtest import SSIM, SsimTestCase, free_port, processes_with_env, wait_for


def read(path):
    with open(path) as f:
        return f.read()


class SetupLines(SsimTestCase):
    def test_setup_lines_reach_the_program_and_arguments_stay_whole(self):
        self.write("experiment.yaml", """
experiment:
  name: setup
  setup: ["export GREETING=hello", "PATH=$PWD/tools:$PATH"]
models:
  - name: m
    exe: /bin/sh
    args: [-c, 'printf "%s|%s|%s\\n" "$GREETING" "$1" "$2"', sh, "two  spaces", "$(entity); rm -rf /"]
  - name: own
    setup: ['export GREETING="$GREETING again"']
    exe: /bin/sh
    args: [-c, 'echo "$GREETING"']
""")
        self.ssim("run", "experiment.yaml", check=0)
        self.assertEqual(self.ssim("logs", "m", check=0).stdout, "hello|two  spaces|m; rm -rf /\n")
        self.assertEqual(self.ssim("logs", "own", check=0).stdout, "hello again\n")  # its own lines come after
        dry = self.ssim("run", "experiment.yaml", "--dry-run", check=0).stdout
        # The step script as bash runs it: the lines, then exec with the arguments quoted.
        self.assertIn("  step script (bash; the first setup line that fails fails the step):\n    export GREETING=hello\n    PATH=$PWD/tools:$PATH\n"
                      "    exec /bin/sh -c 'printf \"%s|%s|%s\\n\" \"$GREETING\" \"$1\" \"$2\"' sh 'two  spaces' 'm; rm -rf /'\n", dry)


class TimeLimit(SsimTestCase):
    def test_run_time_ends_a_program_that_runs_too_long(self):
        # One ignores SIGTERM and needs the SIGKILL after the grace period.
        self.write("experiment.yaml", """
experiment: {name: limit}
models:
  - {name: slow, exe: /bin/sleep, args: ["60"], run: {time: "0:01"}}
  - {name: stubborn, exe: /bin/sh, args: [-c, "trap '' TERM; sleep 60 & while :; do wait; done"], run: {time: "0:01"}}
  - {name: quick, exe: /bin/true, run: {time: "0:30"}}
""")
        t0 = time.monotonic()
        p = self.ssim("run", "experiment.yaml", "--json", timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        for name in ("slow", "stubborn"):
            self.assertEqual(e[name]["status"], "failed")
            self.assertEqual(e[name]["reason"], "time limit (run.time) reached")
        self.assertEqual(e["stubborn"]["signal"], "SIGKILL")
        self.assertEqual(e["quick"]["status"], "completed")
        self.assertLess(time.monotonic() - t0, 55)  # not the programs' own 60 s


class Throttle(SsimTestCase):
    def test_max_running_bounds_how_many_run_at_once(self):
        # Each member records how many members run beside it (marker files).
        self.write("experiment.yaml", """
experiment: {name: thr, max_running: 2}
ensembles:
  - name: e
    exe: /bin/sh
    args: [-c, 'touch ../running.$(replica); sleep 0.3; ls ../ | grep -c "^running" > seen; rm ../running.$(replica)']
    replicas: 6
""")
        self.ssim("run", "experiment.yaml", check=0, timeout=60)
        seen = [int(read(os.path.join(self.dir, f"thr/e/e_{i}/seen"))) for i in range(6)]
        self.assertLessEqual(max(seen), 2, seen)
        self.assertEqual(max(seen), 2, seen)  # and the two slots were used


class Gpus(SsimTestCase):
    """No GPU needed: SSIM_GPUS gives ssim a fake device list, and the programs report
    what CUDA_VISIBLE_DEVICES they were given."""

    def test_each_entity_and_rank_gets_its_own_devices_and_waits_for_them(self):
        self.env["SSIM_GPUS"] = "0,1,2"
        self.write("experiment.yaml", """
experiment: {name: gpu}
models:
  - {name: a, exe: /bin/sh, args: [-c, 'echo $$CUDA_VISIBLE_DEVICES $$ROCR_VISIBLE_DEVICES; sleep 0.5'], run: {gpus_per_task: 1}}
  - {name: b, exe: /bin/sh, args: [-c, 'echo $$CUDA_VISIBLE_DEVICES; sleep 0.5'], run: {gpus_per_task: 1}}
  - name: ranks
    exe: /bin/sh
    args: [-c, 'echo $$OMPI_COMM_WORLD_LOCAL_RANK $$CUDA_VISIBLE_DEVICES $$SSIM_RANK_GPUS > rank.$$OMPI_COMM_WORLD_LOCAL_RANK']
    run: {ntasks: 2, gpus_per_task: 1, mpi: mpirun}
  - {name: cpu, exe: /bin/sh, args: [-c, 'echo "[$${CUDA_VISIBLE_DEVICES-unset}]"']}
""")
        p = self.ssim("run", "experiment.yaml", "--json", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        a = self.ssim("logs", "a", check=0).stdout.split()
        b = self.ssim("logs", "b", check=0).stdout.split()
        self.assertEqual(a[0], a[1])  # CUDA and ROCm see the same device
        self.assertNotEqual(a[0], b[0])
        ranks = [read(os.path.join(self.dir, f"gpu/ranks/rank.{r}")).split() for r in (0, 1)]
        self.assertEqual([r[0] for r in ranks], ["0", "1"])
        self.assertEqual(len({r[1] for r in ranks}), 2, ranks)  # one device each
        self.assertEqual([r[1] for r in ranks], [r[2] for r in ranks])  # and ssim.distributed knows it
        self.assertEqual(self.ssim("logs", "cpu", check=0).stdout.strip(), "[unset]")
        # Three devices, four asked for: "ranks" waited until a or b gave theirs back.
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        self.assertGreaterEqual(e["ranks"]["start"], min(e["a"]["end"], e["b"]["end"]) - 0.05)

    def test_more_gpus_than_there_are_is_refused_before_anything_starts(self):
        self.env["SSIM_GPUS"] = "0,1"
        self.write("experiment.yaml", "experiment: {name: toomany}\nmodels:\n"
                   "  - {name: t, exe: /bin/true, run: {ntasks: 3, gpus_per_task: 1, mpi: mpirun}}\n")
        p = self.ssim("run", "experiment.yaml")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("asks for 3 GPU(s); this machine offers 2 (SSIM_GPUS=0,1)", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "toomany")))


class DistributedDevice(unittest.TestCase):
    """ssim.distributed picks the device a rank was given, never rank % device_count."""

    def test_a_rank_uses_its_own_device_or_refuses_to_share_one(self):
        from ssim.distributed import device_index
        self.assertEqual(device_index(1, 1, {"SSIM_RANK_GPUS": "3"}), 0)  # ssim narrowed it to its own
        self.assertEqual(device_index(3, 1, {"SLURM_GPUS_PER_TASK": "1"}), 0)
        self.assertEqual(device_index(1, 2, {}), 1)  # the node's devices, shared by local rank
        with self.assertRaisesRegex(RuntimeError, "local rank 2 has no GPU of its own"):
            device_index(2, 2, {})


class Cpus(SsimTestCase):
    """The local launcher starts entities only while their CPUs fit (SSIM_CPUS here)."""

    EXPERIMENT = """
experiment: {{name: cpus{extra}}}
ensembles:
  - name: e
    exe: /bin/sh
    args: [-c, 'sleep 0.4']
    replicas: 4
models:
  - {{name: wide, exe: /bin/sh, args: [-c, 'sleep 0.4'], run: {{cpus_per_task: 2}}}}
  - {{name: huge, exe: /bin/sh, args: [-c, 'sleep 0.4'], run: {{ntasks: 3, mpi: none}}}}
"""

    def cpus_in_use(self, extra):
        """Runs the experiment and returns the most CPUs its entities held at one moment."""
        self.env["SSIM_CPUS"] = "2"
        self.write("experiment.yaml", self.EXPERIMENT.format(extra=extra))
        p = self.ssim("run", "experiment.yaml", "--json", "--overwrite", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        e = [x for x in json.loads(p.stdout)["entities"] if x["type"] != "database"]
        cpus = {"wide": 2, "huge": 2}  # huge asks for 3 of the 2 there are: it runs alone, on both
        most = 0
        for x in e:
            at = x["start"] + 0.05  # a moment inside x's run; who else runs then?
            most = max(most, sum(cpus.get(y["name"], 1) for y in e if y["start"] <= at < y["end"]))
        return most

    def test_entities_wait_for_cpus_unless_oversubscribe_is_asked(self):
        self.assertEqual(self.cpus_in_use(""), 2)
        self.assertGreater(self.cpus_in_use(", oversubscribe: true"), 2)


class WaitingForRoom(SsimTestCase):
    def test_a_step_that_needs_several_cpus_is_not_passed_by_one_cpu_members_after_it(self):
        # Two CPUs, both busy; a 2-rank trainer waits, then six one-CPU members listed
        # after it. When one CPU frees, the trainer keeps it (a member does not take it),
        # says what it waits for, and starts as soon as the second frees.
        self.env["SSIM_CPUS"] = "2"
        gates = [os.path.join(self.dir, f"gate{i}") for i in range(2)]
        self.write("experiment.yaml", f"""
experiment: {{name: room}}
models:
  - {{name: a0, exe: /bin/sh, args: [-c, 'while [ ! -e {gates[0]} ]; do sleep 0.05; done']}}
  - {{name: a1, exe: /bin/sh, args: [-c, 'while [ ! -e {gates[1]} ]; do sleep 0.05; done']}}
  - {{name: trainer, exe: /bin/true, run: {{ntasks: 2}}}}
ensembles:
  - {{name: later, exe: /bin/sleep, args: ['0.2'], replicas: 6}}
""")
        run = self.run_until("room", "a1")
        wait_for(lambda: self.status()[1]["trainer"].get("reason") == "waiting for 2 CPUs; 0 free",
                 what="the trainer's note")
        open(gates[0], "w").close()
        wait_for(lambda: self.status()[1]["a0"]["status"] == "completed", what="a0 to end")
        wait_for(lambda: self.status()[1]["trainer"].get("reason") == "waiting for 2 CPUs; 1 free",
                 what="the trainer's note with one CPU free")
        _, s = self.status()
        self.assertEqual({s[f"later_{i}"]["status"] for i in range(6)}, {"new"}, s)  # none took the free CPU
        open(gates[1], "w").close()
        self.assertEqual(run.wait(timeout=60), 0)
        _, s = self.status()
        self.assertLessEqual(s["trainer"]["start"], min(s[f"later_{i}"]["start"] for i in range(6)))


def working_in(folder, below=False):
    """Pids whose working folder is `folder` (also once it is removed), or with `below`
    one inside it."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if cwd.startswith(folder + "/") if below else cwd in (folder, folder + " (deleted)"):
            found.append(int(entry))
    return found


def kill_group(p):
    """The group `p` leads, while `p` is unreaped (so its pid, the group's id, is not reused)."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


class Colocated(SsimTestCase):
    """colocated_db: an entity's own database on each of its nodes."""

    def wrapper_env(self, experiment_id, **extra):
        """The node wrapper (ssim-supervise --colocated-db), a private TMPDIR for its node
        folders, and the environment a task of `experiment_id`'s entity m gets."""
        supervise = os.path.join(os.path.dirname(os.path.abspath(SSIM)), "ssim-supervise")
        tmp = os.path.join(self.dir, "tmp")
        os.makedirs(tmp)
        env = {k: v for k, v in self.env.items() if k != "XDG_RUNTIME_DIR"}
        env.update(TMPDIR=tmp, SSIM_EXPERIMENT_ID=experiment_id, SSIM_ENTITY="m", SSIM_RUN_DIR=self.dir, **extra)
        return supervise, tmp, env

    def test_each_entity_gets_a_database_of_its_own_for_its_ranks(self):
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: colo, oversubscribe: true}}
models:
  - name: uds
    colocated_db: {{}}
    exe: /usr/bin/python3
    args: [-c, "import ssim, os, numpy; c = ssim.Client(); c.put_tensor('x', numpy.arange(4.0)); print(os.environ['SSDB'][:5], c.get_tensor('x').tolist(), c.tensor_exists('y'))"]
  - name: tcp
    colocated_db: {{port: {port}, config: {{maxmemory: 64mb}}}}
    run: {{ntasks: 2, mpi: mpirun}}
    exe: /usr/bin/python3
    args: [-c, "import ssim, os, numpy; r = int(os.environ['OMPI_COMM_WORLD_RANK']); c = ssim.Client(); (c.put_tensor('y', numpy.arange(3.0)) if r == 0 else None); c.poll_tensor('y', 20, 500); print(r, os.environ['SSDB'], c.get_tensor('y').tolist(), c.tensor_exists('x'))"]
""")
        p = self.ssim("run", "experiment.yaml", "--json", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        # Its own database through a Unix socket, sharing nothing with the other entity.
        self.assertEqual(self.ssim("logs", "uds", check=0).stdout, "unix: [0.0, 1.0, 2.0, 3.0] False\n")
        # Both ranks of one node share one database, on the loopback port asked for.
        lines = sorted(self.ssim("logs", "tcp", check=0).stdout.splitlines())
        self.assertEqual(lines, [f"{r} 127.0.0.1:{port} [0.0, 1.0, 2.0] False" for r in (0, 1)])
        # Its log is beside the entity's own output, one per node.
        self.assertTrue(os.path.exists(os.path.join(self.dir, f"colo/tcp/colocated_db.{os.uname().nodename}.log")))
        # Stopped with its entity: no database of this experiment is left.
        exp_id = json.loads(p.stdout)["id"]
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", exp_id), [])
        # Nor its node folder (lock, socket, password) under /tmp/ssim-UID: the last user removes it.
        runtime = self.env.get("XDG_RUNTIME_DIR", "")
        private = runtime and os.path.isdir(runtime) and not os.path.islink(runtime) and \
            os.stat(runtime).st_uid == os.getuid() and os.stat(runtime).st_mode & 0o077 == 0
        base = os.path.join(runtime, "ssim") if private else \
            os.path.join(self.env.get("TMPDIR", "/tmp"), f"ssim-{os.getuid()}")
        for entity in ("uds", "tcp"):
            h = 1469598103934665603  # FNV-1a of ID/ENTITY/NODE, as the supervisor names it
            for byte in f"{exp_id}/{entity}/{os.uname().nodename}".encode():
                h = ((h ^ byte) * 1099511628211) % 2**64
            folder = os.path.join(base, f"colo-{h:016x}")
            self.assertFalse(os.path.exists(folder), entity)
            # Nor its server, which wrote its title over the environment searched above.
            self.assertEqual(working_in(folder), [], entity)

    def test_a_task_that_joins_a_database_already_up_shares_it(self):
        # The tasks of a node join one database. One that comes late, after the server
        # wrote its title over its environment, must still know it for the experiment's
        # and share it, not start a second one (on the same port: refused; on a socket:
        # one left running).
        supervise, tmp, env = self.wrapper_env("joiners")
        done = os.path.join(self.dir, "done")

        def databases():  # what runs in the node folder (the wrappers run in self.dir)
            return working_in(tmp, below=True)

        def titled(pid):  # the server has written its title over its command line
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return b"db.conf" not in f.read()

        for port in ([], ["--port", str(free_port())]):
            with self.subTest(port=port):
                if os.path.exists(done):
                    os.unlink(done)
                first = subprocess.Popen(
                    [supervise, "--colocated-db", *port, "--", "/bin/sh", "-c",
                     f"while [ ! -e {done} ]; do sleep 0.05; done"], env=env, cwd=self.dir,
                    start_new_session=True)
                self.addCleanup(kill_group, first)  # the wrapper and its program, pass or fail
                up = wait_for(lambda: databases(), what="the first task's database")
                wait_for(lambda: titled(up[0]), what="the server's title")
                late = subprocess.run(
                    [supervise, "--colocated-db", *port, "--", "/usr/bin/python3", "-c",
                     "import ssim, numpy; c = ssim.Client(); c.put_tensor('b', numpy.arange(2.0)); "
                     "print(c.get_tensor('b').tolist())"],
                    env=env, cwd=self.dir, capture_output=True, text=True, timeout=60)
                self.assertEqual((late.returncode, late.stdout), (0, "[0.0, 1.0]\n"), late.stderr)
                self.assertEqual(databases(), up)  # the same one, and only it
                open(done, "w").close()
                self.assertEqual(first.wait(timeout=30), 0)
                wait_for(lambda: not databases(), what="the database to end with its last task")

    def test_a_task_that_joins_while_the_database_starts_shares_it(self):
        # For a moment after its start a server is known neither by its environment (mid
        # exec it reads empty; redis wipes it for its title) nor by its folder (not moved
        # there yet). A task joining then must wait for it, not take it for a stranger and
        # start a second database (new password, same socket: the first task's service
        # then fails to log in, CI saw "the inference service ended").
        supervise, tmp, env = self.wrapper_env("starting")
        slow = self.write("slow-redis", "#!/bin/sh\n"
                          "cd / && exec env -i PATH=/usr/bin:/bin sh -c 'sleep 1; exec redis-server \"$@\"' sh \"$@\"\n")
        os.chmod(slow, 0o755)
        done = os.path.join(self.dir, "done")
        first = subprocess.Popen(
            [supervise, "--colocated-db", "--binary", slow, "--", "/usr/bin/python3", "-c",
             "import ssim, numpy, os, time; c = ssim.Client(); c.put_tensor('a', numpy.arange(2.0))\n"
             f"while not os.path.exists({done!r}): time.sleep(0.05)"], env=env, cwd=self.dir, start_new_session=True)
        self.addCleanup(kill_group, first)  # the wrapper and what it started, pass or fail
        base = os.path.join(tmp, f"ssim-{os.getuid()}")
        wait_for(lambda: os.path.isdir(base) and any(os.path.exists(os.path.join(base, d, "pid")) for d in os.listdir(base)),
                 what="the first task to start its database")
        late = subprocess.run(
            [supervise, "--colocated-db", "--binary", slow, "--", "/usr/bin/python3", "-c",
             "import ssim; c = ssim.Client(); c.poll_tensor('a', 20, 500); print(c.get_tensor('a').tolist())"],
            env=env, cwd=self.dir, capture_output=True, text=True, timeout=60)
        self.assertEqual((late.returncode, late.stdout), (0, "[0.0, 1.0]\n"), late.stderr)
        self.assertEqual(len(working_in(tmp, below=True)), 1)  # one database, the first task's
        open(done, "w").close()
        self.assertEqual(first.wait(timeout=30), 0)
        wait_for(lambda: not working_in(tmp, below=True), what="the database to end with its last task")

    def test_a_task_that_ends_before_its_node_mates_start_keeps_the_database_for_them(self):
        # mpirun says two tasks run on this node; on a loaded node the second may start
        # only after the first ended. Were the database stopped with the first, the
        # second would start an empty one of its own and never find what the first put.
        supervise, tmp, env = self.wrapper_env("late", OMPI_COMM_WORLD_LOCAL_SIZE="2")

        def task(rank, code, **kw):
            p = subprocess.Popen([supervise, "--colocated-db", "--", "/usr/bin/python3", "-c",
                                  "import ssim, numpy; c = ssim.Client(); " + code],
                                 env=dict(env, OMPI_COMM_WORLD_RANK=str(rank)), cwd=self.dir,
                                 start_new_session=True, text=True, **kw)
            self.addCleanup(kill_group, p)  # the wrapper and what it started, pass or fail
            return p

        def node_folder():
            base = os.path.join(tmp, f"ssim-{os.getuid()}")
            found = os.listdir(base) if os.path.isdir(base) else []
            return os.path.join(base, found[0]) if found else ""

        def ended_first():  # the first task's program ended, it left, and it waits
            f = node_folder()
            return f and os.path.exists(f + "/left") and read(f + "/left") == "1"

        for late_comes in (True, False):
            with self.subTest(late_comes=late_comes):
                first = task(0, "c.put_tensor('y', numpy.arange(3.0))")
                wait_for(ended_first, what="the first task to end and wait for the second")
                self.assertIsNone(first.poll())
                up = working_in(tmp, below=True)
                self.assertEqual(len(up), 1)  # its database, kept
                if late_comes:
                    late = task(1, "print(c.get_tensor('y').tolist())", stdout=subprocess.PIPE)
                    self.assertEqual(late.communicate(timeout=60)[0], "[0.0, 1.0, 2.0]\n")
                    self.assertEqual(late.returncode, 0)
                else:  # the launcher ends the step: the wait ends at once, with the database
                    first.send_signal(signal.SIGTERM)
                self.assertEqual(first.wait(timeout=30), 0)
                wait_for(lambda: not working_in(tmp, below=True), what="the database to end with the last task")
                wait_for(lambda: not node_folder(), what="the node folder to go")

    def test_a_task_killed_with_sigkill_leaves_no_node_folder_nor_database(self):
        # kill -9 of the wrapper alone (it cannot leave), and of the task's whole group (a
        # launcher's or the OOM killer's): the node folder holds the password, and stayed
        # in $TMPDIR after each such kill (issue 52).
        supervise, tmp, env = self.wrapper_env("killed")
        base = os.path.join(tmp, f"ssim-{os.getuid()}")

        def node_folders():
            return os.listdir(base) if os.path.isdir(base) else []

        for whole_group in (False, True):
            with self.subTest(whole_group=whole_group):
                task = subprocess.Popen([supervise, "--colocated-db", "--", "/bin/sleep", "60"], env=env, cwd=self.dir,
                                        start_new_session=True)
                self.addCleanup(kill_group, task)  # what is left of it, pass or fail
                wait_for(lambda: node_folders() and working_in(tmp, below=True), what="the task's database")
                if whole_group:
                    os.killpg(task.pid, signal.SIGKILL)
                else:
                    task.kill()
                task.wait(timeout=10)
                wait_for(lambda: not working_in(tmp, below=True), what="the database to end with its killed task")
                wait_for(lambda: not node_folders(), what="the node folder to go")

    def test_a_database_that_cannot_start_fails_its_entity_with_the_reason(self):
        self.write("experiment.yaml", "experiment: {name: broken}\nmodels:\n"
                   "  - {name: m, exe: /bin/true, colocated_db: {binary: /bin/false}}\n")
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("colocated database: it ended", self.ssim("logs", "m", "--stderr", check=0).stdout)


class Retries(SsimTestCase):
    def test_a_failed_entity_is_retried_and_each_attempt_recorded(self):
        # Fails twice, then succeeds: attempt 3 of 4 allowed. The other never succeeds.
        self.write("experiment.yaml", """
experiment: {name: retry}
models:
  - name: flaky
    exe: /bin/sh
    args: [-c, 'n=$$(cat count 2>/dev/null || echo 0); echo $$((n + 1)) > count; [ $$n -ge 2 ]']
    retries: 3
  - {name: broken, exe: /bin/sh, args: [-c, "exit 7"], retries: 1}
  - {name: later, exe: /bin/true, after: [flaky]}
""")
        p = self.ssim("run", "experiment.yaml", "--json", timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        self.assertEqual((e["flaky"]["status"], e["flaky"]["attempt"]), ("completed", 3))
        self.assertEqual([a["exit_code"] for a in e["flaky"]["earlier_attempts"]], [1, 1])
        self.assertEqual((e["broken"]["status"], e["broken"]["attempt"], e["broken"]["exit_code"]), ("failed", 2, 7))
        self.assertEqual(len(e["broken"]["earlier_attempts"]), 1)
        self.assertEqual(e["later"]["status"], "completed")


if __name__ == "__main__":
    unittest.main()
