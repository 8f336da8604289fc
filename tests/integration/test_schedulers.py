"""One integration suite for every batch scheduler: Slurm on the real test cluster
(scripts/slurm-cluster.sh), PBS and LSF on the fakes in tests/fixtures/fake-sched, which
really run jobs on this machine over virtual hosts. Each scenario runs once per scheduler."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from ssimtest import SSIM, SsimTestCase, free_port, job_record, kill_group_if_of, launched, processes_with_env, wait_for

FAKES = os.path.abspath(os.path.join(os.path.dirname(__file__), "../fixtures/fake-sched"))
# What every entity prints to say where it ran: Slurm's node name, or the fake host.
WHERE = 'echo "$${SLURMD_NODENAME:-$$(hostname)}"'


def sh(argv, env=None, check=True, stdin=None, cwd=None):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, stdin=stdin, cwd=cwd)
    if check and p.returncode != 0:
        raise AssertionError(f"{argv}: {p.returncode} {p.stderr}")
    return p


def slurm_up():
    try:
        return subprocess.run(["sinfo", "-h"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Schedulers:
    """Scenarios; a subclass says which scheduler and how to talk to it."""
    launcher = ""
    hosts = []

    def setUp(self):
        super().setUp()
        for k in [k for k in self.env if k.startswith(("SLURM_", "PBS_", "LSB_"))]:
            del self.env[k]

    def yaml(self, body, name="exp", extra=""):
        return self.write("experiment.yaml", f"experiment: {{name: {name}, launcher: {self.launcher}{extra}}}\n" + body)

    def run_for_host(self, name):
        return self.ssim("logs", name, check=0).stdout.strip()

    # --- scenarios ---------------------------------------------------------------------

    def test_seed_layout_each_on_its_own_host(self):
        self.allocate(4)
        port = free_port()
        self.yaml(f"""orchestrator: {{port: {port}}}
ensembles:
  - name: producer
    replicas: 2
    key_prefixing: true
    exe: /bin/sh
    args: [-c, 'H=$${{SSDB%:*}}; P=$${{SSDB#*:}}; redis-cli -h $$H -p $$P --no-auth-warning -a "$$SSDB_PASSWORD" SET $$SSKEYOUT.k v >/dev/null && {WHERE}']
    run: {{exclusive: true}}
models:
  - {{name: trainer, exe: /bin/sh, args: [-c, '{WHERE}'], incoming: [producer], after: [producer], run: {{exclusive: true}}}}
""", name="seed")
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        got = {n: self.run_for_host(n) for n in ("producer_0", "producer_1", "trainer")}
        self.assertEqual(got, {"producer_0": self.hosts[1], "producer_1": self.hosts[2], "trainer": self.hosts[3]})
        self.assertEqual(self.database_host(), self.hosts[0])
        _, s = self.status()
        self.assertEqual({n: s[n]["nodes"] for n in got}, got)  # the NODES column says where each ran
        self.assertTrue(all(e["status"] == "completed" for e in s.values()), s)

    def test_ddp_trainer_across_two_nodes_meets_at_rank_zero(self):
        # A plain env:// DDP script, one rank on each of two nodes: every rank is told the
        # same MASTER_ADDR, rank 0's node as the other reaches it (not loopback), and the
        # weights are one process's on the same global batch.
        from test_distributed import TRAIN, assert_same_weights, ranks_told, single_process_weights
        self.allocate(2)
        shutil.copy(TRAIN, self.dir)
        self.yaml("""models:
  - name: train
    exe: /usr/bin/python3
    args: [train_dist.py]
    run: {ntasks: 2, nodes: 2}
    files: {copy: [train_dist.py]}
    env: {OMP_NUM_THREADS: "1", FROM_FILE: "yes"}
""", name="ddp")
        p = self.ssim("run", "experiment.yaml", check=0, timeout=240)
        _, s = self.status()
        self.assertEqual(s["train"]["status"], "completed", p.stdout + p.stderr + str(s))
        told = ranks_told(os.path.join(self.dir, "ddp/train"), 2)
        self.assertEqual([t["RANK"] for t in told], ["0", "1"])
        self.assertEqual([t["LOCAL_RANK"] for t in told], ["0", "0"])  # one a node
        self.assertEqual(len({t["host"] for t in told}), 2, told)
        self.assertEqual(len({(t["MASTER_ADDR"], t["MASTER_PORT"]) for t in told}), 1, told)
        self.assertFalse(told[0]["MASTER_ADDR"].startswith("127."), told)
        # The rank on the other node got what ssim and the file give the entity too.
        self.assertEqual([(t["entity"], t["from_file"]) for t in told], [("train", "yes")] * 2, told)
        assert_same_weights(self, told[0]["weights"], single_process_weights())

    def test_one_torchrun_a_node_is_told_its_node_rank_and_rank_zeros_address(self):
        # torchrun reads its options from PET_* variables: a stand-in records them.
        self.allocate(2)
        self.write("torchrun", "#!/bin/sh\n"
                   "echo $PET_NNODES $PET_NODE_RANK $PET_NPROC_PER_NODE $PET_MASTER_ADDR $PET_MASTER_PORT "
                   "\"$*\" > pet.$PET_NODE_RANK\n")
        os.chmod(os.path.join(self.dir, "torchrun"), 0o755)
        self.yaml(f"""models:
  - name: tr
    exe: {self.dir}/torchrun
    args: [train.py, --epochs, "2"]
    run: {{ntasks: 2, nodes: 2, torchrun: 4}}
""", name="tr")
        p = self.ssim("run", "experiment.yaml", check=0, timeout=120)
        _, s = self.status()
        self.assertEqual(s["tr"]["status"], "completed", p.stdout + p.stderr)
        got = []
        for r in (0, 1):
            with open(os.path.join(self.dir, f"tr/tr/pet.{r}")) as f:
                got.append(f.read().split())
        self.assertEqual([g[:3] for g in got], [["2", "0", "4"], ["2", "1", "4"]])
        self.assertEqual(got[0][3:5], got[1][3:5])  # one rendezvous: rank 0's address and port
        self.assertFalse(got[0][3].startswith("127."), got)
        self.assertEqual(got[0][5:], ["train.py", "--epochs", "2"])

    def test_failing_step_reports_exit_code_3(self):
        self.allocate(1)
        self.yaml("models:\n  - {name: bad, exe: /bin/sh, args: [-c, 'exit 3']}\n")
        self.ssim("run", "experiment.yaml", check=1, timeout=120)
        _, s = self.status()
        self.assertEqual((s["bad"]["status"], s["bad"]["exit_code"]), ("failed", 3))

    def test_stop_mid_run_leaves_nothing_behind(self):
        self.allocate(2)
        self.yaml("models:\n  - {name: long, exe: /bin/sleep, args: ['300']}\n"
                  "  - {name: job, exe: /bin/sleep, args: ['300'], batch: {nodes: 1}}\n")
        run = self.run_until("exp", "job", lambda e: e["status"] == "running" and e["native_id"], "running as a job")
        wait_for(lambda: self.status()[1]["long"]["status"] == "running", what="long running")
        job = self.status()[1]["job"]["native_id"]
        exp_id = self.manifest("exp")["id"]
        self.ssim("stop", check=0, timeout=60)
        self.assertEqual(run.wait(timeout=60), 1)
        _, s = self.status()
        self.assertEqual((s["long"]["status"], s["job"]["status"]), ("cancelled", "cancelled"))
        wait_for(lambda: self.job_ended(job), timeout=30, what=f"job {job} out of the queue")
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=30, what="no process left")

    def test_status_and_stop_from_a_login_node(self):
        # ssim run on a compute "host" of the allocation (its own pids and hostname); status
        # and stop from here, a login node that cannot see those pids.
        self.allocate(2)
        self.yaml("ensembles:\n  - {name: m, exe: /bin/sleep, args: ['300'], replicas: 2}\n"
                  "models:\n  - {name: later, exe: /bin/true, after: [m]}\n", name="far")
        run, exit_code = self.ssim_elsewhere("cn1", "run", "experiment.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "far/.ssim/manifest.json")), what="manifest")
        running = lambda: all(self.status()[1][f"m_{i}"]["status"] == "running" for i in range(2))
        wait_for(running, timeout=60, what="both members running, seen from the login node")
        for _ in range(5):  # and they stay so: their pids mean nothing here
            _, s = self.status()
            self.assertEqual([s[f"m_{i}"]["status"] for i in range(2)], ["running"] * 2, s)
            self.assertEqual(s["later"]["status"], "new")
        self.assertIn("on cn1", self.ssim("status").stdout)
        exp_id = self.manifest("far")["id"]
        p = self.ssim("stop", timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        wait_for(lambda: exit_code() is not None, timeout=30, what="the run on cn1 to end")
        self.assertEqual(exit_code(), 1)
        _, s = self.status()
        self.assertEqual({n: e["status"] for n, e in s.items()},
                         {"m_0": "cancelled", "m_1": "cancelled", "later": "cancelled"})
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=30, what="no process left")

    def test_kill_9_of_run_then_exact_status(self):
        self.allocate(1)
        self.yaml("models:\n  - {name: s, exe: /bin/sh, args: [-c, 'sleep 2; exit 5']}\n")
        run = self.run_until("exp", "s")
        run.kill()
        run.wait()
        wait_for(lambda: self.status()[1]["s"]["status"] == "failed", timeout=30, what="failed after the kill")
        self.assertEqual(self.status()[1]["s"]["exit_code"], 5)

    def test_entities_as_batch_jobs(self):
        self.yaml("""models:
  - name: good
    exe: /bin/sh
    args: [-c, 'echo "hello $$1"', sh, "it's \\"quoted\\"; $$(rm -rf /)"]
    batch: {nodes: 1, time: "00:05:00", setup: ['echo "entity setup"']}
  - {name: bad, exe: /bin/sh, args: [-c, 'exit 3'], batch: {nodes: 1}}
""", extra=", setup: ['echo \"experiment setup\"']")
        self.ssim("run", "experiment.yaml", check=1, timeout=120)
        _, s = self.status()
        self.assertEqual(s["good"]["status"], "completed")
        self.assertEqual((s["bad"]["status"], s["bad"]["exit_code"]), ("failed", 3))
        self.assertTrue(s["good"]["native_id"])
        self.assertEqual(self.ssim("logs", "good", check=0).stdout,
                         "experiment setup\nentity setup\nhello it's \"quoted\"; $(rm -rf /)\n")

    def test_whole_experiment_as_one_batch_job(self):
        port = free_port()
        self.yaml(f"batch: {{time: '00:10:00'}}\norchestrator: {{port: {port}}}\n"
                  f"ensembles:\n  - {{name: p, exe: /bin/sh, args: [-c, '{WHERE}'], replicas: 2}}\n", name="whole")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        job = re.search(r"batch job (\S+) ", p.stderr).group(1)
        self.addCleanup(self.cancel, job)
        self.assertEqual(self.status()[1]["batch"]["native_id"], job)

        def finished():
            _, s = self.status()
            return len(s) == 4 and all(e["status"] == "completed" for e in s.values())
        try:
            wait_for(finished, timeout=120, what="the batch job and its entities to complete")
        except AssertionError:
            err = os.path.join(self.dir, "whole/.ssim/batch.err")
            raise AssertionError(self.ssim("status").stdout + (open(err).read() if os.path.exists(err) else "no batch.err"))
        # The database's node and one more, where the two members are packed.
        self.assertEqual(sorted(self.run_for_host(n) for n in ("p_0", "p_1")), [self.hosts[1]] * 2)

    def test_plan_that_does_not_fit_is_refused_before_anything_is_submitted(self):
        self.allocate(2)
        self.yaml("ensembles:\n  - {name: e, exe: /bin/true, replicas: 3, run: {exclusive: true}}\n", name="big")
        before = self.queued_ids()
        p = self.ssim("run", "experiment.yaml", check=2)
        self.assertIn("does not fit", p.stderr)
        self.assertIn("e_2 needs 1 node(s)", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "big")))
        # Nothing new in the queue (other tests' jobs may leave it meanwhile: the cluster is shared).
        self.assertLessEqual(self.queued_ids(), before)

    def test_dry_run_shows_every_script_and_command_without_the_scheduler(self):
        self.yaml("models:\n  - {name: a, exe: /bin/echo, args: ['x y'], batch: {nodes: 1, time: '00:05:00'}}\n")
        env = dict(self.env, PATH="/usr/bin:/bin")  # no scheduler command anywhere
        p = subprocess.run([os.environ["SSIM"], "run", "experiment.yaml", "--dry-run"], cwd=self.dir, env=env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(self.directive, p.stdout)
        self.assertIn("--wrap", p.stdout)
        self.assertIn("'x y'", p.stdout)
        p = subprocess.run([os.environ["SSIM"], "run", "experiment.yaml", "--batch", "--dry-run"], cwd=self.dir,
                           env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"batch script ({self.dir}/exp/.ssim/batch.", p.stdout)
        self.assertIn("--in-batch", p.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "exp")))


@unittest.skipUnless(slurm_up(), "no Slurm cluster (scripts/slurm-cluster.sh up)")
class Slurm(Schedulers, SsimTestCase):
    launcher = "slurm"
    hosts = ["n1", "n2", "n3", "n4"]
    directive = "#SBATCH --time=00:05:00"

    def allocate(self, nodes):
        p = sh(["salloc", f"-N{nodes}", "--exclusive", "--no-shell", "-J", f"ssim-test-{os.getpid()}"])
        job = re.search(r"Granted job allocation (\d+)", p.stderr).group(1)
        self.addCleanup(self.cancel, job)
        nodelist, cpus = sh(["squeue", "-h", "-j", job, "-o", "%N %C"]).stdout.split()
        self.env.update(SLURM_JOB_ID=job, SLURM_JOB_NODELIST=nodelist, OMPI_MCA_btl="^vader",
                        SLURM_JOB_CPUS_PER_NODE=f"{int(cpus) // nodes}(x{nodes})")

    def cancel(self, job):
        sh(["scancel", job], check=False)

    def database_host(self):
        e = self.status()[1]["orchestrator"]
        out = sh(["sacct", "--parsable2", "--noheader", "--format=NodeList", "-j", e["native_id"]]).stdout
        return out.split()[0]

    def job_ended(self, job):
        return sh(["squeue", "-h", "-j", job], check=False).stdout.strip() == ""

    def queued_ids(self):
        return set(sh(["squeue", "-h", "-o", "%i"]).stdout.split())


class Fake(Schedulers):
    """A fake scheduler's state directory and PATH for each test."""
    hosts = ["fn1", "fn2", "fn3", "fn4"]

    def setUp(self):
        super().setUp()
        self.state = tempfile.mkdtemp(prefix="ssim-fake-sched-")
        self.env.update(PATH=FAKES + ":" + self.env["PATH"], SSIM_FAKE_SCHED_DIR=self.state,
                        SSIM_FAKE_PASS_ENV="SSIM_STATE_HOME")
        self.addCleanup(self.kill_all_jobs)

    def kill_all_jobs(self):
        # Every process of this fake cluster carries its state folder in its environment
        # (runners, virtual hosts, jobs): all of them go before the folder does, or a runner
        # finishing a killed job would write it again.
        def alive():
            return processes_with_env("SSIM_FAKE_SCHED_DIR", self.state)
        for _ in range(3):
            for pid in alive():
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                wait_for(lambda: not alive(), timeout=5, what="the fake cluster's processes to end")
                break
            except AssertionError:
                continue  # one forked while we killed: again
        shutil.rmtree(self.state, ignore_errors=True)

    def jobs(self):
        d = os.path.join(self.state, "jobs")
        out = []
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if name.endswith(".json"):
                with open(os.path.join(d, name)) as f:
                    out.append(json.load(f))
        return out

    def queued_ids(self):
        return {j["id"] for j in self.jobs()}

    def allocate(self, nodes, **kwargs):
        """A holder job; ssim then runs inside it, with the environment the job got."""
        envfile = os.path.join(self.state, "holder.env")
        script = self.write("holder.sh", self.holder_script(nodes, envfile, **kwargs))
        job = self.submit(script)
        self.addCleanup(self.cancel, job)
        wait_for(lambda: os.path.exists(envfile) and open(envfile).read().endswith("END\n"), what="holder job env")
        for line in open(envfile).read().split("\0"):
            k, _, v = line.partition("=")
            if k.startswith((self.prefix, "OMPI_MCA_plm_rsh_agent", "SSIM_FAKE_HOST", "NCPUS")):
                self.env[k] = v

    def database_host(self):
        doc, status = self.status()
        run_dir = os.path.join(self.dir, status["orchestrator"]["run_dir"])
        argv, _ = launched(os.path.join(self.dir, doc["path"]), run_dir)
        return argv[argv.index("--host") + 1].split(":")[0]

    def cancel(self, job):
        sh([self.kill_command, job], env=self.env, check=False)

    def test_steps_are_packed_by_the_slots_the_job_has(self):
        # Holder jobs have one slot per host: the database takes the first, and four
        # one-task members share the other two, two at a time.
        self.allocate(3)
        port = free_port()
        self.yaml(f"orchestrator: {{port: {port}}}\nensembles:\n"
                  f"  - {{name: m, exe: /bin/sh, args: [-c, '{WHERE}; sleep 0.3'], replicas: 4}}\n", name="packed")
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        _, s = self.status()
        members = [s[f"m_{i}"] for i in range(4)]
        self.assertEqual({self.run_for_host(f"m_{i}") for i in range(4)}, set(self.hosts[1:3]))
        for m in members:
            beside = [o for o in members if o["start"] <= m["start"] + 0.05 < o["end"]]
            self.assertLessEqual(len(beside), 2, members)

    def test_members_run_through_one_agent_per_node_on_all_its_cpus(self):
        # Inside a job, one-task members go to one ssim agent per node, started by one
        # mpirun; they run on the node they were placed on, bound to no core (each mpirun
        # would bind its one rank to core 0: every member of a node on one CPU).
        self.allocate(2)
        self.yaml("ensembles:\n"
                  "  - {name: m, exe: /bin/sh, args: [-c, 'hostname; grep Cpus_allowed_list /proc/self/status'], replicas: 4}\n"
                  "models:\n"
                  "  - {name: step, exe: /bin/sh, args: [-c, 'hostname; grep Cpus_allowed_list /proc/self/status'],\n"
                  "     run: {agent: false}}\n", name="agents")
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        with open("/proc/self/status") as f:
            all_cpus = [line for line in f if line.startswith("Cpus_allowed_list")][0].strip()
        _, s = self.status()
        for name in ["m_0", "m_1", "m_2", "m_3", "step"]:
            host, cpus = self.ssim("logs", "agents", name, check=0).stdout.splitlines()
            self.assertEqual(host, s[name]["nodes"], name)  # where ssim placed it, by the node's own name
            self.assertIn(host, self.hosts[:2])
            self.assertEqual(" ".join(cpus.split()), " ".join(all_cpus.split()), name)
            self.assertEqual(s[name]["job_id"].startswith("agent:"), name != "step", s[name])
        with open(os.path.join(self.dir, "agents/.ssim/ssim.log")) as f:
            self.assertEqual(f.read().count("node agents started on fn1,fn2"), 1)

    def test_the_dry_run_prints_the_script_that_is_submitted(self):
        # Byte for byte, but for the experiment's id and a lone rank's free port (chosen by
        # the run as it submits): its exports too
        # (the module's PYTHONPATH once, before the file's own; the id; MPI as root).
        self.yaml("models:\n  - {name: a, exe: /bin/true, batch: {nodes: 1}, env: {PYTHONPATH: /mine}}\n", name="dry")
        p = self.ssim("run", "experiment.yaml", "--dry-run")
        self.assertEqual(p.returncode, 0, p.stderr)
        m = re.search(r"  batch script \((\S+)\):\n((?:    .*\n)+)", p.stdout)
        path, printed = m.group(1), "".join(line[4:] + "\n" for line in m.group(2).splitlines())
        self.assertEqual(printed.count("PYTHONPATH="), 1, printed)
        self.assertRegex(printed, r"export PYTHONPATH=\S+:/mine\n")
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        with open(path) as f:
            submitted = f.read()
        exp_id = self.manifest("dry")["id"]
        port = re.search(r"export MASTER_PORT=(\d+)\n", submitted).group(1)
        self.assertGreaterEqual(int(port), 20000)
        self.assertEqual(printed.replace("'<experiment id, made by ssim run>'", exp_id)
                         .replace("'<a free port>'", port), submitted)

    def test_a_lost_agent_fails_its_member_and_ends_nothing_else(self):
        # One mpirun runs every agent: Open MPI ends all ranks when one dies, unless told
        # not to. The other node's member must complete, and the lost one's rerun elsewhere.
        self.allocate(2)
        self.yaml("ensembles:\n  - {name: m, exe: /bin/sleep, args: ['6'], replicas: 2, retries: 1}\n", name="lost")
        run = self.run_until("lost", "m_1")
        wait_for(lambda: all(e["status"] == "running" for e in self.status()[1].values()), what="both running")
        _, s = self.status()
        dead = s["m_1"]["nodes"]
        agent = self.agent_on("lost", dead)
        keepers = [int(p) for p in sh(["pgrep", "-P", str(agent)], check=False).stdout.split()]
        os.kill(agent, signal.SIGKILL)  # the node dies with everything on it
        for k in keepers:
            os.kill(k, signal.SIGKILL)
        self.assertTrue(kill_group_if_of(s["m_1"]["pid"], self.manifest("lost")["id"]))  # still running
        self.assertEqual(run.wait(timeout=90), 0)
        _, s = self.status()
        self.assertEqual(s["m_0"]["status"], "completed")
        self.assertEqual(s["m_0"]["earlier_attempts"], [], s["m_0"])  # never touched
        self.assertEqual(s["m_1"]["status"], "completed")
        self.assertNotEqual(s["m_1"]["nodes"], dead)
        [earlier] = s["m_1"]["earlier_attempts"]
        self.assertIn(f"node {dead} lost", earlier["reason"])

    def agent_on(self, exp, node):
        """The pid of the node agent on `node` of experiment `exp` (its heartbeat file says)."""
        agents = os.path.join(self.dir, exp, ".ssim/agents")
        [generation] = os.listdir(agents)
        with open(os.path.join(agents, generation, node, "alive")) as f:
            return int(f.read().split()[0])

    def test_an_agent_killed_alone_ends_its_attempts_and_never_writes_over_the_retry(self):
        # Only the agent dies (its keepers and their programs live on, as after an OOM kill
        # of the agent): ssim retries the member elsewhere; the first attempt must end, and
        # whatever it records must never overwrite the retry's record.
        self.allocate(2)
        self.yaml("ensembles:\n  - {name: m, exe: /bin/sleep, args: ['4'], replicas: 2, retries: 1}\n", name="alone")
        run = self.run_until("alone", "m_1")
        wait_for(lambda: all(e["status"] == "running" for e in self.status()[1].values()), what="both running")
        _, s = self.status()
        dead, first = s["m_1"]["nodes"], s["m_1"]["pid"]
        agent = self.agent_on("alone", dead)
        killed_at = time.time()
        os.kill(agent, signal.SIGKILL)
        wait_for(lambda: not os.path.exists(f"/proc/{first}") or read_stat_state(first) == "Z",
                 timeout=5, what="the first attempt's program to end with its agent")
        self.assertEqual(run.wait(timeout=90), 0)
        _, s = self.status()
        m1 = s["m_1"]
        self.assertEqual((m1["status"], m1["attempt"]), ("completed", 2), m1)
        self.assertNotEqual(m1["nodes"], dead)
        self.assertGreater(m1["start"], killed_at, "the record's times are the retry's")
        record = job_record(m1["run_dir"])
        self.assertNotEqual(record["node"], dead, "the first attempt wrote over the retry's record")
        [earlier] = m1["earlier_attempts"]
        self.assertIn(f"the ssim agent on {dead} died", earlier["reason"])


def read_stat_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


class Pbs(Fake, SsimTestCase):
    launcher = "pbs"
    prefix = "PBS_"
    kill_command = "qdel"
    directive = "#PBS -l walltime=00:05:00"

    def holder_script(self, nodes, envfile, ncpus=1):
        mpiprocs = ":mpiprocs=1" if ncpus == 1 else ""
        return (f"#!/bin/bash\n#PBS -N holder\n#PBS -l select={nodes}:ncpus={ncpus}{mpiprocs}\n"
                f"env -0 > {envfile}.tmp; echo END >> {envfile}.tmp; mv {envfile}.tmp {envfile}\nexec sleep 600\n")

    def submit(self, script):
        return sh(["qsub", script], env=self.env, cwd=self.dir).stdout.strip()  # NAME.oSEQ land here

    def job_ended(self, job):
        # Job history is off, as on a default server: an ended job is no longer listed.
        p = sh(["qstat", "-f", "-F", "json", job], env=self.env, check=False)
        return json.loads(p.stdout).get("Jobs", {}).get(job, {}).get("job_state", "F") == "F"

    def test_history_off_is_the_default_and_jobs_still_end_right(self):
        p = sh(["qstat", "-x", "-f", "-F", "json"], env=self.env)
        self.assertIn("not configured to maintain job history", p.stderr)
        self.yaml("models:\n  - {name: ok, exe: /bin/sh, args: [-c, 'sleep 1'], batch: {nodes: 1}}\n"
                  "  - {name: bad, exe: /bin/sh, args: [-c, 'sleep 1; exit 4'], batch: {nodes: 1}}\n")
        self.ssim("run", "experiment.yaml", check=1, timeout=120)
        _, s = self.status()
        self.assertEqual((s["ok"]["status"], s["ok"]["exit_code"]), ("completed", 0))
        self.assertEqual((s["bad"]["status"], s["bad"]["exit_code"]), ("failed", 4))
        qstats = [json.loads(line) for line in open(os.path.join(self.state, "calls.log")) if '"qstat"' in line]
        self.assertTrue(any("-x" not in c for c in qstats), qstats)  # switched to queries that work
        self.assertLess(len(qstats), 20, "qstat asked at a server's pace")

    def test_packed_steps_overlap_on_the_cpus_a_job_holds(self):
        # select=2:ncpus=4 writes one PBS_NODEFILE line per host; the job still holds 4 CPUs
        # on each, so two one-task members run side by side.
        self.allocate(2, ncpus=4)
        self.yaml("ensembles:\n  - {name: m, exe: /bin/sh, args: [-c, 'sleep 1.5'], replicas: 2}\n", name="pair")
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        _, s = self.status()
        a, b = s["m_0"], s["m_1"]
        self.assertTrue(a["start"] < b["end"] and b["start"] < a["end"], (a, b))

    def test_stop_with_500_members_running_through_agents_leaves_nothing(self):
        self.env["SSIM_FAKE_CPUS"] = "256"
        self.allocate(2, ncpus=250)
        self.yaml("ensembles:\n  - {name: m, exe: /bin/sleep, args: ['300'], replicas: 500}\n", name="many")
        run = self.run_until("many", "m_499")
        wait_for(lambda: all(e["status"] == "running" for e in self.status()[1].values()), timeout=60,
                 what="all 500 running")
        exp_id = self.manifest("many")["id"]
        self.ssim("stop", check=0, timeout=60)
        self.assertEqual(run.wait(timeout=60), 1)
        _, s = self.status()
        self.assertEqual({e["status"] for e in s.values()}, {"cancelled"})
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=30, what="no member left")
        wait_for(lambda: not sh(["pgrep", "-f", "ssim-supervise --agent"], check=False).stdout.strip(), timeout=30,
                 what="no agent left")

    def test_stop_of_a_member_through_an_agent_ends_what_it_detached_and_nothing_else(self):
        # A node agent's keepers keep one member after another: a stop ends what the member
        # detached through ssim's marker, never by signalling a keeper that may already keep
        # the next member.
        self.allocate(1, ncpus=2)
        self.yaml("models:\n  - name: d\n    exe: /bin/sh\n"
                  "    args: [-c, 'env -i /usr/bin/setsid /bin/sh -c \"echo $$$$ > daemon.pid; exec sleep 300\" & sleep 60']\n"
                  "  - {name: other, exe: /bin/sleep, args: ['60']}\n", name="det")
        run = self.run_until("det", "d")
        self.assertTrue(self.status()[1]["d"]["job_id"].startswith("agent:"), self.status()[1]["d"])
        pidfile = os.path.join(self.dir, "det/d/daemon.pid")
        pid = int(wait_for(lambda: os.path.exists(pidfile) and open(pidfile).read().strip(), what="daemon started"))
        self.addCleanup(lambda: os.path.exists(f"/proc/{pid}") and os.kill(pid, signal.SIGKILL))
        wait_for(lambda: self.status()[1]["other"]["status"] == "running", what="other running")
        self.ssim("stop", "d", check=0, timeout=60)
        wait_for(lambda: not os.path.exists(f"/proc/{pid}"), timeout=15, what="the member's detached daemon to end")
        _, s = self.status()
        self.assertEqual((s["d"]["status"], s["other"]["status"]), ("cancelled", "running"))
        self.ssim("stop", check=0, timeout=60)
        self.assertEqual(run.wait(timeout=60), 1)

    def test_multi_rank_job_of_its_own_spans_its_hosts(self):
        self.yaml("models:\n  - {name: wide, exe: /bin/sh, args: [-c, 'echo $$SSIM_FAKE_HOST'],\n"
                  "     run: {ntasks: 4, nodes: 2, mpi: mpirun}, batch: {nodes: 2}}\n")
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr + self.ssim("logs", "wide", "--stderr", check=None).stdout)
        self.assertEqual(sorted(self.ssim("logs", "wide", check=0).stdout.split()), ["fn1", "fn1", "fn2", "fn2"])

    def test_queued_batch_experiment_is_pending_then_runs(self):
        holder = self.submit(self.write("hog.sh", "#!/bin/bash\n#PBS -l select=4:ncpus=4\nexec sleep 600\n"))
        self.addCleanup(self.cancel, holder)
        wait_for(lambda: not self.job_ended(holder) and self.jobs_by_id()[holder]["state"] == "R", what="hog running")
        self.yaml("batch: {time: '00:10:00'}\nmodels:\n  - {name: a, exe: /bin/true}\n", name="queued")
        self.ssim("run", "experiment.yaml", "--batch", check=0)
        for _ in range(3):
            _, s = self.status()
            self.assertEqual({n: e["status"] for n, e in s.items()}, {"batch": "pending", "a": "pending"})
        self.assertIn("waiting for batch job", self.ssim("status").stdout)
        self.cancel(holder)
        try:
            wait_for(lambda: self.status()[1]["a"]["status"] == "completed", timeout=60, what="a completed once it ran")
        except AssertionError:
            err = os.path.join(self.dir, "queued/.ssim/batch.err")
            raise AssertionError(self.ssim("status").stdout + json.dumps(self.jobs(), indent=1)[:3000] +
                                 (open(err).read() if os.path.exists(err) else "no batch.err"))

    def test_a_batch_experiment_deleted_while_queued_with_history_off_is_not_pending_for_ever(self):
        # The server forgets the job at once (history off): a one-shot ssim status has no
        # earlier answer to wait from, only the job's folder, which says it never started.
        holder = self.submit(self.write("hog.sh", "#!/bin/bash\n#PBS -l select=4:ncpus=4\nexec sleep 600\n"))
        self.addCleanup(self.cancel, holder)
        wait_for(lambda: not self.job_ended(holder) and self.jobs_by_id()[holder]["state"] == "R", what="hog running")
        self.yaml("batch: {time: '00:10:00'}\nmodels:\n  - {name: a, exe: /bin/true}\n", name="deleted")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        job = re.search(r"batch job (\S+) ", p.stderr).group(1)
        self.assertEqual(self.status()[1]["batch"]["status"], "pending")
        self.cancel(job)  # qdel while queued: the job never starts
        batch = {}

        def gone():
            batch.update(self.status()[1]["batch"])
            return batch["status"] != "pending"
        wait_for(gone, timeout=60, what="the deleted batch job to leave pending")
        self.assertEqual(batch["status"], "failed", batch)
        self.assertIn(f"no longer knows job {job}, which never started", batch["reason"])
        a = self.status()[1]["a"]
        self.assertEqual((a["status"], a["reason"]),
                         ("cancelled", f"not started: its batch job {job} ended before any entity started"))

    def test_a_job_killed_for_its_wall_time_says_so_with_history_off(self):
        # The server kills the job at its walltime; without job history nobody but the
        # job's own record can say so, and it says what the server would.
        self.yaml("models:\n  - {name: slow, exe: /bin/sleep, args: ['60'], batch: {nodes: 1, time: '00:00:02'}}\n")
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 1, p.stderr)
        slow = self.status()[1]["slow"]
        self.assertEqual(slow["status"], "failed")
        self.assertIn("wall time exceeded (2 s)", slow["reason"])

    def test_a_batch_experiment_killed_for_its_wall_time_says_so_and_fails(self):
        # The server ends the job at its wall time with SIGTERM: the run inside says so, as
        # for a batch entity, and what did not finish is failed, not "interrupted". MoM's
        # kill_delay between SIGTERM and SIGKILL: OpenPBS's default, 10 s.
        self.env["SSIM_FAKE_KILL_DELAY"] = "10"
        self.yaml("batch: {nodes: 1, time: '00:00:06'}\n"
                  "models:\n  - {name: long, exe: /bin/sleep, args: ['200']}\n"
                  "  - {name: later, exe: /bin/true, after: [long]}\n", name="bwall")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        job = re.search(r"batch job (\S+) ", p.stderr).group(1)
        self.addCleanup(self.cancel, job)
        wait_for(lambda: self.job_ended(job), timeout=90, what="the job to reach its wall time")
        wait_for(lambda: self.status()[1]["batch"]["status"] in ("failed", "cancelled", "completed"), timeout=30,
                 what="the batch row to end")
        self.ssim("status", "bwall", check=1)  # what did not finish failed
        _, s = self.status()
        for name in ("batch", "long", "later"):
            self.assertEqual(s[name]["status"], "failed", s[name])
            self.assertIn("wall time exceeded (00:00:06)", s[name]["reason"], s[name])

    def test_a_batch_experiment_that_can_never_run_says_why_to_ssim_status(self):
        # Job history off (the server's default): `qstat -x` names no job. A one-shot ssim
        # status asks again without -x, in line, and says the server's reason.
        self.yaml("batch: {nodes: 8, time: '00:10:00'}\nmodels:\n  - {name: a, exe: /bin/true}\n", name="never")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        self.addCleanup(self.cancel, re.search(r"batch job (\S+) ", p.stderr).group(1))
        batch = self.status()[1]["batch"]
        self.assertEqual(batch["status"], "failed")
        self.assertIn("can never run: Not enough total nodes available", batch["reason"])
        self.assertEqual(self.status()[1]["a"]["status"], "cancelled")

    def test_a_job_that_can_never_run_ends_the_run_at_once(self):
        self.yaml("models:\n  - {name: fat, exe: /bin/true, batch: {nodes: 8}}\n"
                  "  - {name: after_fat, exe: /bin/true, after: [fat], batch: {nodes: 1}}\n")
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("says it can never run: Not enough total nodes available", p.stderr)
        _, s = self.status()
        self.assertEqual((s["fat"]["status"], s["after_fat"]["status"]), ("failed", "cancelled"))
        self.assertTrue(all(j["state"] == "F" for j in self.jobs()), "nothing left queued")

    def test_kill_9_of_the_run_inside_a_job_leaves_nothing_once_the_job_ends(self):
        # Members through node agents, a 2-task MPI step (its mpirun) and the database.
        self.yaml("orchestrator: {port: %d}\nensembles:\n  - {name: m, exe: /bin/sleep, args: ['300'], replicas: 2}\n"
                  "models:\n  - {name: mpi, exe: /bin/sleep, args: ['300'], run: {ntasks: 2, mpi: mpirun}}\n"
                  % free_port(), name="injob")
        job, run = self.run_in_a_job("injob")
        exp_id = self.manifest("injob")["id"]
        self.assertTrue(processes_with_env("SSIM_EXPERIMENT_ID", exp_id))
        # Nothing ssim started on the job's first host left the job's session (the one its
        # execution daemon ends). On the other hosts mpirun's daemons came through the remote
        # shell and lead sessions of their own, as under ssh: nothing there ends with the job
        # but what ssim ends itself.
        def session(pid):
            with open(f"/proc/{pid}/stat") as f:
                return int(f.read().rsplit(")", 1)[1].split()[3])
        def through_remote_shell(pid):
            with open(f"/proc/{pid}/environ", "rb") as f:
                return any(v.startswith(b"SSIM_FAKE_HOST=") for v in f.read().split(b"\0"))
        job_session = session(run)
        remote = 0
        for pid in processes_with_env("SSIM_EXPERIMENT_ID", exp_id):
            try:
                if through_remote_shell(pid):
                    remote += 1
                    continue
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    self.assertEqual(session(pid), job_session, f.read()[:80])
            except FileNotFoundError:
                pass
        self.assertGreater(remote, 0, "members on the other hosts, through mpirun's remote shell")
        os.kill(int(run), signal.SIGKILL)
        wait_for(lambda: self.job_ended(job), timeout=30, what="the job to end with its script")
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=15,
                 what="nothing of the experiment left once the job ended")
        # Nor what no longer shows the id (redis-server writes its title over its
        # environment; mpirun's helpers): nothing runs in the experiment's folders.
        def left():
            out = []
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    if os.path.realpath(f"/proc/{pid}/cwd").startswith(os.path.join(self.dir, "injob") + "/"):
                        out.append((pid, open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ")[:80]))
                except OSError:
                    pass
            return out
        wait_for(lambda: not left(), timeout=15, what="no process in the experiment's folders once the job ended")

    def test_a_dead_in_job_run_s_entities_end_with_its_job_seen_from_the_login_node(self):
        # kill -9 of the run inside a job, then the job's end: seen from a login node (no
        # pid of the job's visible), what ran in the job ended with it, not "running" for
        # ever.
        self.yaml("ensembles:\n  - {name: m, exe: /bin/sleep, args: ['300'], replicas: 2}\n"
                  "models:\n  - {name: mpi, exe: /bin/sleep, args: ['300'], run: {ntasks: 2, mpi: mpirun}}\n",
                  name="dead")
        job, run = self.run_in_a_job("dead")
        self.assertTrue(self.manifest("dead")["allocation_job"])
        os.kill(int(run), signal.SIGKILL)
        wait_for(lambda: self.job_ended(job), timeout=30, what="the job to end with its script")

        def from_login(*args):
            p, code = self.ssim_elsewhere("login", *args)
            out, err = p.communicate(timeout=60)
            return code(), out, err

        code, out, err = from_login("status", "--json")
        self.assertEqual(code, 1, err + out)
        s = {e["name"]: e for e in json.loads(out)["entities"]}
        for name in ("m_0", "m_1", "mpi"):
            self.assertEqual(s[name]["status"], "failed", s[name])
            self.assertIn(f"ended with its job: job {job} ended", s[name]["reason"])

    def test_logs_of_a_running_batch_entity_arrive_as_it_runs(self):
        # PBS spools a job's output on the execution host until it ends, unless -k oed.
        self.yaml("models:\n  - {name: talk, exe: /bin/sh, args: [-c, 'echo started; sleep 300'], batch: {nodes: 1}}\n")
        run = self.run_until("exp", "talk")
        wait_for(lambda: self.ssim("logs", "talk", check=0).stdout == "started\n", timeout=30,
                 what="the running job's output")
        self.ssim("stop", check=0)
        self.assertEqual(run.wait(timeout=60), 1)

    def test_a_refused_submission_is_an_environment_failure(self):
        self.yaml("models:\n  - {name: q, exe: /bin/true, batch: {nodes: 1, queue: nope}}\n")
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("qsub refused the job: qsub: Unknown queue", p.stderr)

    def test_auto_on_a_login_node_submits_batch_entities_to_the_scheduler_found(self):
        only_pbs = tempfile.mkdtemp(prefix="ssim-only-pbs-")
        self.addCleanup(shutil.rmtree, only_pbs, True)
        for cmd in ("qsub", "qstat", "qdel", "pbsnodes"):
            os.symlink(os.path.join(FAKES, "fakesched.py"), os.path.join(only_pbs, cmd))
        self.write("experiment.yaml", "experiment: {name: auto}\n"
                   "models:\n  - {name: j, exe: /bin/true, batch: {nodes: 1}}\n")
        # A login node where PBS is the only scheduler: this machine's programs, less Slurm's.
        for d in ("/usr/local/bin", "/usr/bin", "/bin"):
            for name in os.listdir(d) if os.path.isdir(d) else []:
                if name not in ("sbatch", "salloc", "srun", "bsub") and not os.path.lexists(os.path.join(only_pbs, name)):
                    os.symlink(os.path.join(d, name), os.path.join(only_pbs, name))
        self.env["PATH"] = only_pbs
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        _, s = self.status()
        self.assertTrue(s["j"]["native_id"].endswith(".pbs-sim"), s["j"])
        # With two schedulers installed, auto cannot guess: a clear error, nothing written.
        self.env["PATH"] = FAKES + ":" + only_pbs
        self.write("two.yaml", "experiment: {name: two}\nmodels:\n  - {name: j, exe: /bin/true, batch: {nodes: 1}}\n")
        p = self.ssim("run", "two.yaml", check=2)
        self.assertIn("several schedulers can take jobs here: pbs (qsub), lsf (bsub)", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "two")))

    def test_detach_inside_a_batch_script_is_refused(self):
        self.yaml("models:\n  - {name: a, exe: /bin/true}\n")
        env = dict(self.env, PBS_JOBID="5.pbs-sim", PBS_ENVIRONMENT="PBS_BATCH")
        p = subprocess.run([SSIM, "run", "experiment.yaml", "--detach"], cwd=self.dir, env=env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--detach inside a batch job script", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "exp")))

    def run_in_a_job(self, path):
        """`ssim run experiment.yaml` in a job script of three hosts, its members m_0, m_1
        and mpi running: the job's id and the in-job run's pid."""
        script = self.write("job.sh", f"#!/bin/bash\n#PBS -l select=3:ncpus=2\ncd {self.dir}\n"
                                      f"exec {os.path.abspath(SSIM)} run experiment.yaml\n")
        job = self.submit(script)
        self.addCleanup(self.cancel, job)
        wait_for(lambda: os.path.exists(os.path.join(self.dir, path, ".ssim/manifest.json")), timeout=60,
                 what="manifest")
        wait_for(lambda: all(self.status()[1][n]["status"] == "running" for n in ("m_0", "m_1", "mpi")), timeout=60,
                 what=lambda: f"members running in the job; seen: "
                 f"{ {n: (e['status'], e.get('reason')) for n, e in self.status()[1].items()} }, jobs: {self.jobs()}, "
                 f"mpi's stderr: {self.tail(os.path.join(self.dir, path, 'mpi/mpi.err'))!r}")
        runs = [pid for pid in os.listdir("/proc") if pid.isdigit() and self.is_ssim_run(int(pid))]
        self.assertEqual(len(runs), 1, runs)
        return job, runs[0]

    @staticmethod
    def tail(path, size=2000):
        """The end of a file, for a failure's message ("" when there is none)."""
        try:
            with open(path, errors="replace") as f:
                return f.read()[-size:]
        except OSError:
            return ""

    def is_ssim_run(self, pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            return False
        return len(argv) > 2 and argv[0].endswith(b"/ssim") and argv[1] == b"run" and \
            os.path.realpath(f"/proc/{pid}/cwd") == os.path.realpath(self.dir)

    def jobs_by_id(self):
        return {j["id"]: j for j in self.jobs()}


class Lsf(Fake, SsimTestCase):
    launcher = "lsf"
    prefix = "LSB_"
    kill_command = "bkill"
    directive = "#BSUB -W 0:05"

    def holder_script(self, nodes, envfile):
        return (f"#!/bin/bash\n#BSUB -J holder\n#BSUB -n {nodes}\n#BSUB -R \"span[ptile=1]\"\n"
                f"env -0 > {envfile}.tmp; echo END >> {envfile}.tmp; mv {envfile}.tmp {envfile}\nexec sleep 600\n")

    def submit(self, script):
        with open(script) as f:
            out = sh(["bsub"], env=self.env, stdin=f, cwd=self.dir).stdout
        return re.search(r"Job <(\d+)>", out).group(1)

    def job_ended(self, job):
        p = sh(["bjobs", "-o", "jobid stat", "-json", job], env=self.env, check=False)
        return json.loads(p.stdout)["RECORDS"][0].get("STAT") in ("DONE", "EXIT")


del Schedulers  # only the per-scheduler classes are tests

if __name__ == "__main__":
    unittest.main()
