"""Trainer ranks wired the same on every launcher (docs/distributed.md): a plain
env:// DDP script (tests/fixtures/trainers/train_dist.py) runs unmodified, the ranks agree
on MASTER_ADDR, the trained weights equal one process's on the same global batch, and the
rank that failed first is the one named. Here: the local launcher (mpirun); the Slurm
test cluster's nodes and the PBS/LSF fakes' hosts are in test_schedulers.py."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from ssimtest import SSIM, SsimTestCase, processes_with_env, wait_for

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
TRAIN = os.path.join(ROOT, "tests/fixtures/trainers/train_dist.py")
CASES = os.path.join(ROOT, "tests/fixtures/rank-env-cases.json")
PYTHON_DIR = os.environ.get("SSIM_PYTHON_DIR", os.path.join(ROOT, "build/python"))

_single = None


def single_process_weights():
    """The weights one process trains on the whole global batch (computed once)."""
    global _single
    if _single is None:
        with tempfile.TemporaryDirectory() as d:
            env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "MASTER_PORT")}
            env.update(RANK="0", WORLD_SIZE="1")
            subprocess.run(["/usr/bin/python3", TRAIN], cwd=d, env=env, check=True, timeout=120)
            with open(os.path.join(d, "rank0.json")) as f:
                _single = json.load(f)["weights"]
    return _single


def assert_same_weights(test, got, want, tolerance=1e-5):
    flat = lambda ws: [x for w in ws for x in w]
    test.assertEqual(len(flat(got)), len(flat(want)))
    for a, b in zip(flat(got), flat(want)):
        test.assertLess(abs(a - b), tolerance, (got, want))


def ranks_told(run_dir, n):
    out = []
    for r in range(n):
        with open(os.path.join(run_dir, f"rank{r}.json")) as f:
            out.append(json.load(f))
    return out


class LocalRanks(SsimTestCase):
    def experiment(self, ranks, extra_env=""):
        shutil.copy(TRAIN, self.dir)
        self.write("experiment.yaml", f"""
experiment: {{name: ddp}}
models:
  - name: train
    exe: /usr/bin/python3
    args: [train_dist.py]
    run: {{ntasks: {ranks}}}
    files: {{copy: [train_dist.py]}}
    env: {{OMP_NUM_THREADS: "1"{extra_env}}}
""")

    def test_plain_env_init_at_2_and_4_ranks_trains_as_one_process(self):
        for ranks in (2, 4):
            with self.subTest(ranks=ranks):
                shutil.rmtree(os.path.join(self.dir, "ddp"), ignore_errors=True)
                self.experiment(ranks)
                p = self.ssim("run", "experiment.yaml", timeout=240)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                told = ranks_told(os.path.join(self.dir, "ddp/train"), ranks)
                self.assertEqual([t["RANK"] for t in told], [str(r) for r in range(ranks)])
                self.assertEqual({t["WORLD_SIZE"] for t in told}, {str(ranks)})
                self.assertEqual([t["LOCAL_RANK"] for t in told], [str(r) for r in range(ranks)])  # one node
                self.assertEqual({(t["MASTER_ADDR"], t["MASTER_PORT"]) for t in told},
                                 {(told[0]["MASTER_ADDR"], told[0]["MASTER_PORT"])})
                self.assertEqual(told[0]["MASTER_ADDR"], "127.0.0.1")  # every rank on this machine
                self.assertGreater(int(told[0]["MASTER_PORT"]), 0)
                assert_same_weights(self, told[0]["weights"], single_process_weights())

    def test_the_rank_that_failed_first_is_named_with_its_own_error(self):
        self.experiment(2, ', FAIL_RANK: "1"')
        p = self.ssim("run", "experiment.yaml", timeout=240)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        p = self.ssim("status", "ddp", "--json")
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}["train"]
        self.assertEqual(e["status"], "failed")
        self.assertTrue(e["last_error"].startswith("rank 1 failed first (exit 1"), e["last_error"])
        self.assertIn("RuntimeError: rank 1 exploded at epoch 1", e["last_error"])
        self.assertNotIn("Connection closed", e["last_error"])
        text = self.ssim("status", "ddp").stdout
        self.assertIn("rank 1 failed first", text)

    def test_a_stop_that_comes_while_a_failed_rank_brings_mpirun_down_keeps_the_failure(self):
        # Rank 1 fails at once; rank 0 ignores SIGTERM, so mpirun takes a while to end it.
        self.write("experiment.yaml", """
experiment: {name: crash}
models:
  - name: mpi
    exe: /bin/sh
    args: [-c, 'if [ "$RANK" = 1 ]; then echo "ValueError: bad input" >&2; exit 3; fi; trap "" TERM; sleep 30']
    run: {ntasks: 2}
""")
        run = self.ssim_background("run", "experiment.yaml")
        ends = os.path.join(self.dir, "crash/mpi/.ssim-rank-ends")
        wait_for(lambda: os.path.exists(ends) and os.path.getsize(ends) > 0, 60, "rank 1's end")
        self.ssim("stop", "crash", check=0)
        run.wait(timeout=60)
        e = {x["name"]: x for x in json.loads(self.ssim("status", "crash", "--json").stdout)["entities"]}["mpi"]
        # Failed with rank 1's own exit code and words (whether mpirun had ended before the
        # stop or not), never cancelled by the stop.
        self.assertEqual((e["status"], e["exit_code"]), ("failed", 3), e)
        # Rank 0, which mpirun ended (SIGTERM, then SIGKILL to its whole group), is recorded
        # too: the note says it ended after rank 1 failed (issue 52: its end was missing).
        self.assertTrue(e["last_error"].startswith("rank 1 failed first (exit 3"), e["last_error"])
        self.assertIn("ValueError: bad input", e["last_error"])
        self.assertIn("rank 0 ended after rank 1 failed", e["last_error"])
        with open(ends) as f:
            rank0 = [json.loads(line) for line in f if json.loads(line)["rank"] == 0]
        self.assertEqual([(r["signal"], r.get("asked")) for r in rank0], [(15, True)], rank0)

    def test_a_launchers_signal_before_the_program_starts_is_recorded(self):
        # Under load, mpirun may end a step (another rank failed on its first line) while a
        # rank's wrapper is still waiting for rank 0's address: that rank's end is recorded
        # all the same, as asked, and the wrapper ends by the signal, its program never run.
        supervise = os.path.join(os.path.dirname(os.path.abspath(SSIM)), "ssim-supervise")
        ends = os.path.join(self.dir, "ends")
        env = dict(self.env, OMPI_COMM_WORLD_RANK="1", OMPI_COMM_WORLD_SIZE="2")
        wrapper = subprocess.Popen([supervise, "--rank", "--size", "2", "--master", os.path.join(self.dir, "master"),
                                    "--ends", ends, "--", "/bin/sh", "-c", "touch started"],
                                   cwd=self.dir, env=env)
        try:
            def catches_sigterm():  # its handler is in place (SigCgt), so the signal is its to handle
                with open(f"/proc/{wrapper.pid}/status") as f:
                    caught = next(line for line in f if line.startswith("SigCgt:"))
                return int(caught.split()[1], 16) & (1 << (15 - 1))
            wait_for(catches_sigterm, 30, "the wrapper's signal handlers")
            wrapper.send_signal(15)
            self.assertEqual(wrapper.wait(timeout=30), -15)
        finally:
            wrapper.kill()
            wrapper.wait()
        with open(ends) as f:
            records = [json.loads(line) for line in f]
        self.assertEqual([(r["rank"], r["signal"], r.get("asked")) for r in records], [(1, 15, True)], records)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "started")))

    def test_a_lone_rank_and_a_program_that_sets_its_own(self):
        self.write("experiment.yaml", """
experiment: {name: lone}
models:
  - {name: one, exe: /bin/sh, args: [-c, 'echo $$RANK $$WORLD_SIZE $$LOCAL_RANK $$MASTER_ADDR $$MASTER_PORT']}
  - name: own
    exe: /bin/sh
    args: [-c, 'echo "[$${RANK-unset}]" $$OMPI_COMM_WORLD_RANK > own.$$OMPI_COMM_WORLD_RANK']
    run: {ntasks: 2, rank_env: false}
  - name: port
    exe: /bin/sh
    args: [-c, 'echo $$RANK $$MASTER_PORT > port.$$RANK']
    run: {ntasks: 2}
    env: {MASTER_PORT: "29876"}
""")
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        told = self.ssim("logs", "one", check=0).stdout.split()
        self.assertEqual(told[:4], ["0", "1", "0", "127.0.0.1"])
        self.assertGreaterEqual(int(told[4]), 20000)  # a real port, never 0 (workers it spawns meet there)
        for r in (0, 1):
            with open(os.path.join(self.dir, f"lone/own/own.{r}")) as f:
                self.assertEqual(f.read().split(), ["[unset]", str(r)])
            with open(os.path.join(self.dir, f"lone/port/port.{r}")) as f:
                self.assertEqual(f.read().split(), [str(r), "29876"])  # the file's env: wins

    def test_the_shells_rank_wiring_never_wins_over_ssims(self):
        # A notebook's leftovers, or ssim started inside another DDP job: ssim's wiring wins
        # for every rank, says so once, and a lone rank gets a real port of its own. Only
        # an entity's own env: chooses (here its MASTER_PORT).
        self.write("experiment.yaml", """
experiment: {name: shell}
models:
  - name: four
    exe: /bin/sh
    args: [-c, 'echo $$RANK $$WORLD_SIZE $$LOCAL_RANK $$MASTER_ADDR $$MASTER_PORT > told.$$OMPI_COMM_WORLD_RANK']
    run: {ntasks: 4}
  - name: chosen
    exe: /bin/sh
    args: [-c, 'echo $$RANK $$MASTER_PORT > told.$$RANK']
    run: {ntasks: 2}
    env: {MASTER_PORT: "29877"}
  - name: lone_a
    exe: /usr/bin/python3
    args: [-c, "import os, socket; s = socket.socket(); s.bind(('127.0.0.1', int(os.environ['MASTER_PORT']))); print(os.environ['MASTER_PORT'])"]
  - name: lone_b
    exe: /usr/bin/python3
    args: [-c, "import os, socket; s = socket.socket(); s.bind(('127.0.0.1', int(os.environ['MASTER_PORT']))); print(os.environ['MASTER_PORT'])"]
""")
        env = dict(self.env, RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="10.9.9.9", MASTER_PORT="29500")
        p = subprocess.run([SSIM, "run", "experiment.yaml"], cwd=self.dir, env=env, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        notices = [l for l in p.stderr.splitlines() if "replaced by ssim's rank wiring" in l]
        self.assertEqual(len(notices), 1, p.stderr)
        self.assertIn("RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT", notices[0])
        told = []
        for r in range(4):
            with open(os.path.join(self.dir, f"shell/four/told.{r}")) as f:
                told.append(f.read().split())
        self.assertEqual([t[:3] for t in told], [[str(r), "4", str(r)] for r in range(4)], told)
        self.assertEqual({(t[3], t[4]) for t in told}, {(told[0][3], told[0][4])}, told)
        self.assertEqual(told[0][3], "127.0.0.1")
        self.assertNotEqual(told[0][4], "29500")
        for r in (0, 1):
            with open(os.path.join(self.dir, f"shell/chosen/told.{r}")) as f:
                self.assertEqual(f.read().split(), [str(r), "29877"])
        ports = set()
        for name in ("lone_a", "lone_b"):
            with open(os.path.join(self.dir, f"shell/{name}/{name}.out")) as f:
                ports.add(f.read().strip())
        self.assertEqual(len(ports), 2, ports)
        self.assertNotIn("29500", ports)

    def test_each_rank_has_its_own_gpu_and_local_rank_agrees(self):
        self.env["SSIM_GPUS"] = "0,1,2,3"
        self.write("experiment.yaml", """
experiment: {name: gpus}
models:
  - name: t
    exe: /bin/sh
    args: [-c, 'echo $$LOCAL_RANK $$CUDA_VISIBLE_DEVICES > dev.$$RANK']
    run: {ntasks: 2, gpus_per_task: 2}
""")
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        got = {}
        for r in (0, 1):
            with open(os.path.join(self.dir, f"gpus/t/dev.{r}")) as f:
                got[r] = f.read().split()
        self.assertEqual([got[r][0] for r in (0, 1)], ["0", "1"])
        self.assertEqual(len(set(got[0][1].split(",")) | set(got[1][1].split(","))), 4, got)  # two each, none shared


class Torchrun(SsimTestCase):
    def test_a_lone_torchrun_is_standalone_with_its_workers(self):
        self.write("torchrun", "#!/bin/sh\necho $PET_STANDALONE $PET_NPROC_PER_NODE \"$*\" > pet\n")
        os.chmod(os.path.join(self.dir, "torchrun"), 0o755)
        self.write("experiment.yaml", f"""
experiment: {{name: tr}}
models:
  - {{name: t, exe: {self.dir}/torchrun, args: [train.py], run: {{torchrun: 2}}}}
""")
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(self.dir, "tr/t/pet")) as f:
            self.assertEqual(f.read().split(), ["1", "2", "train.py"])


class Gang(SsimTestCase):
    """Members that must run together (one member per rank, MLBench's style): gang: true."""

    def test_a_gang_that_cannot_fit_is_refused_before_anything_starts(self):
        self.env["SSIM_CPUS"] = "2"
        self.write("experiment.yaml", "experiment: {name: g}\nensembles:\n"
                   "  - {name: ranks, exe: /bin/true, replicas: 4, gang: true}\n")
        p = self.ssim("run", "experiment.yaml")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("ensemble ranks has gang: true, so its 4 members start together, but together they need 4 CPUs "
                      "and there are 2 CPUs", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "g")))

    def test_a_gang_waits_with_a_note_then_starts_all_at_once(self):
        self.env["SSIM_CPUS"] = "4"
        gate = os.path.join(self.dir, "gate")
        self.write("experiment.yaml", f"""
experiment: {{name: g}}
models:
  - {{name: busy, exe: /bin/sh, args: [-c, 'while [ ! -e {gate} ]; do sleep 0.05; done']}}
ensembles:
  - {{name: ranks, exe: /bin/sh, args: [-c, 'sleep 0.3'], replicas: 4, gang: true}}
""")
        run = self.run_until("g", "busy")
        from ssimtest import wait_for
        note = "waiting for room for all 4 members of ranks to start together (gang: true)"
        wait_for(lambda: all(self.status()[1][f"ranks_{i}"].get("reason") == note for i in range(4)),
                 what="the gang's note")
        _, s = self.status()
        self.assertEqual({s[f"ranks_{i}"]["status"] for i in range(4)}, {"new"})  # none started alone
        self.assertIn(note, self.ssim("status", "g").stdout)
        open(gate, "w").close()
        self.assertEqual(run.wait(timeout=60), 0)
        _, s = self.status()
        starts = [s[f"ranks_{i}"]["start"] for i in range(4)]
        self.assertLess(max(starts) - min(starts), 0.2, starts)  # together
        self.assertGreaterEqual(min(starts), s["busy"]["end"] - 0.05)

    def test_a_member_that_fails_before_the_others_are_done_ends_its_gang(self):
        # The others wait for a peer by design (here: for ever); the failed one ends them.
        self.env["SSIM_CPUS"] = "4"
        self.write("experiment.yaml", """
experiment: {name: g}
ensembles:
  - name: ranks
    exe: /bin/sh
    args: [-c, 'if [ $(member_index) = 1 ]; then echo "bad input on rank 1" >&2; exit 3; fi; exec sleep 300']
    replicas: 3
    gang: true
""")
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        _, s = self.status()
        self.assertEqual((s["ranks_1"]["status"], s["ranks_1"]["exit_code"]), ("failed", 3), s["ranks_1"])
        for name in ("ranks_0", "ranks_2"):
            self.assertEqual(s[name]["status"], "cancelled", s[name])
            self.assertEqual(s[name]["reason"], "ranks_1 of gang ranks failed: bad input on rank 1", s[name])
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", self.manifest("g")["id"]), [])


class OneAnswer(unittest.TestCase):
    """ssim.distributed and ssim.metrics give the answer the C++ side gives (the same
    table: tests/fixtures/rank-env-cases.json, lib/client/rank_info_test.cpp)."""

    def test_python_reads_every_launcher_as_the_clients_do(self):
        sys.path.insert(0, PYTHON_DIR)
        from ssim._rank import rank_info
        from ssim import distributed
        with open(CASES) as f:
            cases = json.load(f)
        for c in cases:
            with self.subTest(c["what"]):
                self.assertEqual(list(rank_info(c["env"])[:4]), c["rank"])
        import ssim
        self.assertIs(ssim.metrics.rank, __import__("ssim.metrics").metrics.rank)  # `import ssim` is enough
        # MPICH/PALS-style variables: not "rank 0 of 1" any more.
        pals = {"PALS_RANKID": "3", "PMI_RANK": "3", "PMI_SIZE": "4", "PALS_LOCAL_RANKID": "1", "PMI_LOCAL_SIZE": "2",
                "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
        saved = dict(os.environ)
        try:
            for k in [k for k in os.environ if k.startswith(("OMPI_", "PMI", "PALS", "SLURM_", "RANK", "WORLD"))]:
                del os.environ[k]
            os.environ.update(pals)
            self.assertEqual(distributed.launch_info(), (3, 4, 1, "10.0.0.1", 29500))
            from ssim import metrics
            self.assertEqual(metrics.rank(), 3)
        finally:
            os.environ.clear()
            os.environ.update(saved)


if __name__ == "__main__":
    unittest.main()
