"""The Slurm launcher on a real Slurm cluster (scripts/slurm-cluster.sh up: 4 virtual
nodes n1-n4 with accounting). Skipped when no cluster answers."""
import json
import os
import re
import signal
import subprocess
import time
import unittest

from ssimtest import SSIM, SsimTestCase, free_port, kill_group_if_of, processes_with_env, wait_for

EXAMPLES = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../examples"))


def sh(*argv, check=True):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if check and p.returncode != 0:
        raise AssertionError(f"{argv}: {p.returncode} {p.stderr}")
    return p


def cluster_up():
    try:
        return subprocess.run(["sinfo", "-h"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def hostnames(nodelist):
    """"n[3-4]" -> ["n3", "n4"]: the other Slurm suite may hold some of the cluster at
    the same time, so an allocation is not always n1 and n2."""
    return sh("scontrol", "show", "hostnames", nodelist).stdout.split()


def sacct(ids, fields="JobID,JobName,State,ExitCode,NodeList"):
    out = sh("sacct", "--parsable2", "--noheader", f"--format={fields}", "-j", ",".join(ids)).stdout
    return {line.split("|")[0]: line.split("|") for line in out.splitlines() if line}


class SlurmCase(SsimTestCase):
    def setUp(self):
        super().setUp()
        for k in [k for k in self.env if k.startswith("SLURM_")]:
            del self.env[k]

    def allocate(self, nodes):
        name = f"ssim-test-{os.getpid()}-{id(self)}"
        p = sh("salloc", f"-N{nodes}", "--exclusive", "--no-shell", "-J", name)
        job = re.search(r"Granted job allocation (\d+)", p.stderr).group(1)
        self.addCleanup(sh, "scancel", job, check=False)
        nodelist, cpus = sh("squeue", "-h", "-j", job, "-o", "%N %C").stdout.split()
        # What a shell inside the allocation sees (every node of this cluster is alike).
        self.env.update(SLURM_JOB_ID=job, SLURM_JOB_NODELIST=nodelist,
                        SLURM_JOB_CPUS_PER_NODE=f"{int(cpus) // nodes}(x{nodes})")
        self.nodes = hostnames(nodelist)
        return job

    def wait_all_completed(self, count, timeout):
        """Until the experiment has `count` entities, all completed (a --batch job and what it ran)."""
        def finished():
            _, s = self.status()
            return len(s) == count and all(e["status"] == "completed" for e in s.values())
        wait_for(finished, timeout=timeout, what="the batch job and its entities to complete")


@unittest.skipUnless(cluster_up(), "no Slurm cluster (scripts/slurm-cluster.sh up)")
class Slurm(SlurmCase):
    """Entities as Slurm steps and jobs of their own. One-task members would go through
    node agents (SlurmAgents below); tests of the step path say `agent: false`."""

    def test_seed_layout_inside_an_allocation(self):
        self.allocate(4)
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: seed, launcher: slurm, env: {{OMPI_MCA_btl: "^vader"}}}}
orchestrator: {{port: {port}}}
ensembles:
  - name: producer
    replicas: 2
    key_prefixing: true
    exe: /bin/sh
    args: [-c, 'H=$${{SSDB%:*}}; P=$${{SSDB#*:}}; redis-cli -h $$H -p $$P --no-auth-warning -a "$$SSDB_PASSWORD" SET $$SSKEYOUT.k v']
    run: {{exclusive: true}}
models:
  - {{name: trainer, exe: /bin/sh, args: [-c, 'echo $$SLURMD_NODENAME'], incoming: [producer], run: {{nodes: 1}}}}
""")
        dry = self.ssim("run", "experiment.yaml", "--dry-run", check=0).stdout
        self.assertIn("--nodelist=n4", dry)
        self.ssim("run", "experiment.yaml", check=0)
        doc, s = self.status()
        steps = {name: e["native_id"] for name, e in s.items()}
        for name, step in steps.items():
            self.assertRegex(step, r"^\d+\.\d+$", name)
        # Accounting catches up with a step's end a moment after srun returns.
        acct = wait_for(lambda: (lambda a: a if all(a[st][2] != "RUNNING" for st in steps.values()) else None)(
            sacct(steps.values())), timeout=30, what="sacct to record the steps' end")
        nodes = {name: acct[step][4] for name, step in steps.items()}
        self.assertEqual(nodes, {"orchestrator": "n1", "producer_0": "n2", "producer_1": "n3", "trainer": "n4"})
        for step in steps.values():
            self.assertEqual(acct[step][2], "COMPLETED")
        self.assertEqual(self.ssim("logs", "trainer", check=0).stdout, "n4\n")

    def test_packed_steps_get_their_own_cpus_on_shared_nodes(self):
        # 2 nodes of 4 CPUs; the database takes the first. Six one-CPU members and a 3-task
        # model need 9 CPUs: packed on the second, at most 4 CPUs at once, each step its own.
        self.allocate(2)
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: packed, launcher: slurm}}
orchestrator: {{port: {port}}}
ensembles:
  - {{name: m, exe: /bin/sleep, args: ["1"], replicas: 6, run: {{agent: false}}}}
models:
  - {{name: wide, exe: /bin/sleep, args: ["1"], run: {{ntasks: 3, mpi: none}}}}
""")
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        _, s = self.status()
        steps = {name: e["native_id"] for name, e in s.items() if name != "orchestrator"}
        acct = sacct(steps.values(), "JobID,AllocCPUS,NodeList,Start,End,State")
        for name, step in steps.items():
            _, cpus, node, _, _, state = acct[step]
            self.assertEqual((node, state), (self.nodes[1], "COMPLETED"), name)
            self.assertEqual(int(cpus), 3 if name == "wide" else 1, name)
            self.assertEqual(s[name]["nodes"], self.nodes[1], name)  # ssim recorded where it ran
        # sacct's times are whole seconds: count CPUs held at each start, by step.
        spans = [(acct[st][3], acct[st][4], int(acct[st][1])) for st in steps.values()]
        for t, _, _ in spans:
            held = sum(c for a, b, c in spans if a <= t < b)
            self.assertLessEqual(held, 4, spans)

    def test_colocated_database_on_each_node_of_a_step(self):
        # Two ranks on two nodes: each node's database is its own.
        self.allocate(2)
        self.write("colo.py", "from mpi4py import MPI\nimport os, numpy, ssim\nc = MPI.COMM_WORLD\nr = c.Get_rank()\n"
                   "db = ssim.Client()\ndb.put_tensor(f'k{r}', numpy.zeros(2))\nc.Barrier()\n"
                   "open(f'rank{r}.txt', 'w').write(f\"{os.environ['SLURMD_NODENAME']} {os.environ['SSDB'][:5]} "
                   "{db.tensor_exists(f'k{r}')} {db.tensor_exists(f'k{1 - r}')}\")\n")
        self.write("experiment.yaml", """
experiment: {name: colo, launcher: slurm, env: {OMPI_MCA_btl: "^vader"}}
models:
  - {name: m, exe: /usr/bin/python3, args: [colo.py], colocated_db: {}, run: {ntasks: 2, tasks_per_node: 1}, files: {copy: [colo.py]}}
""")
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        _, s = self.status()
        got = []
        for r in range(2):
            with open(os.path.join(s["m"]["run_dir"], f"rank{r}.txt")) as f:
                got.append(f.read().split())
        self.assertNotEqual(got[0][0], got[1][0])  # two nodes
        self.assertEqual([g[1:] for g in got], [["unix:", "True", "False"]] * 2)

    def test_a_node_s_tasks_share_its_colocated_database_and_srun_says_how_many(self):
        # Four ranks, two on each of two nodes: the two of a node share its database (each
        # sees its mate's key, not the other node's), and the node folder counts the two
        # tasks srun says run there (SLURM_STEP_TASKS_PER_NODE), for which a task that ends
        # first keeps the database.
        self.allocate(2)
        self.write("colo.py", "from mpi4py import MPI\nimport os, numpy, ssim\nc = MPI.COMM_WORLD\nr = c.Get_rank()\n"
                   "db = ssim.Client()\ndb.put_tensor(f'k{r}', numpy.zeros(2))\nc.Barrier()\n"
                   "folder = os.path.dirname(os.environ['SSDB'][len('unix:'):])\n"
                   "seen = ','.join(str(k) for k in range(4) if db.tensor_exists(f'k{k}'))\n"
                   "open(f'rank{r}.txt', 'w').write(f\"{os.environ['SLURMD_NODENAME']} {seen} "
                   "{open(folder + '/expected').read()}\")\n")
        self.write("experiment.yaml", """
experiment: {name: colo, launcher: slurm, env: {OMPI_MCA_btl: "^vader"}}
models:
  - {name: m, exe: /usr/bin/python3, args: [colo.py], colocated_db: {}, run: {ntasks: 4, tasks_per_node: 2}, files: {copy: [colo.py]}}
""")
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        _, s = self.status()
        got = {}
        for r in range(4):
            with open(os.path.join(s["m"]["run_dir"], f"rank{r}.txt")) as f:
                node, seen, expected = f.read().split()
            got.setdefault(node, set()).add((seen, expected))
        self.assertEqual(len(got), 2, got)  # two node names
        for node, views in got.items():
            self.assertEqual(len(views), 1, (node, views))  # the node's two ranks saw one database
            seen, expected = views.pop()
            self.assertEqual((len(seen.split(",")), expected), (2, "2"), node)

    def test_mpi_steps_with_pmix_and_with_mpirun(self):
        self.allocate(4)
        # One file per rank: ranks' stdout lines may interleave in the shared .out file.
        self.write("hello.py", "from mpi4py import MPI\nimport os\nc = MPI.COMM_WORLD\n"
                   "total = c.allreduce(c.Get_rank())\n"
                   "open(f'rank{c.Get_rank()}.txt', 'w').write(f\"{c.Get_rank()} {c.Get_size()} {os.environ['SLURMD_NODENAME']} {total}\")\n")
        self.write("experiment.yaml", """
experiment: {name: mpi, launcher: slurm, env: {OMPI_MCA_btl: "^vader"}}
models:
  - {name: pmix, exe: /usr/bin/python3, args: [hello.py], run: {nodes: 2, ntasks: 4}, files: {copy: [hello.py]}}
  - {name: viampirun, exe: /usr/bin/python3, args: [hello.py], run: {nodes: 2, ntasks: 4, mpi: mpirun}, files: {copy: [hello.py]}}
""")
        self.ssim("run", "experiment.yaml", check=0)
        _, s = self.status()
        for name, nodes in (("pmix", {"n1", "n2"}), ("viampirun", {"n3", "n4"})):
            lines = []
            for r in range(4):
                with open(os.path.join(s[name]["run_dir"], f"rank{r}.txt")) as f:
                    lines.append(f.read())
            self.assertEqual(len(lines), 4, lines)
            self.assertEqual({l.split()[2] for l in lines}, nodes)
            self.assertEqual({l.split()[3] for l in lines}, {"6"})  # 0+1+2+3 over 4 ranks
            # Each task recorded its own clean end (srun's exit 0 alone does not count).
            with open(os.path.join(s[name]["run_dir"], ".ssim-step-ends")) as f:
                ends = f.read().splitlines()
            self.assertEqual(len(ends), 4, ends)
            self.assertEqual({e.split()[1] for e in ends}, {"0"})

    def test_entities_as_batch_jobs(self):
        self.write("experiment.yaml", """
experiment: {name: perjob, launcher: slurm, setup: ['echo "experiment setup"']}
models:
  - name: good
    exe: /bin/sh
    args: [-c, 'echo "hello $$1"', sh, "it's \\"quoted\\"; $$(rm -rf /)"]
    batch: {nodes: 1, time: "00:05:00", options: {comment: "two words"}, setup: ['echo "entity setup"']}
  - {name: bad, exe: /bin/sh, args: [-c, 'exit 3'], batch: {nodes: 1}}
""")
        dry = self.ssim("run", "experiment.yaml", "--dry-run", check=0).stdout
        self.assertIn('#SBATCH --comment="two words"', dry)
        self.ssim("run", "experiment.yaml", check=1)
        _, s = self.status()
        self.assertEqual(s["good"]["status"], "completed")
        self.assertRegex(s["good"]["native_id"], r"^\d+$")  # the job itself
        self.assertRegex(s["good"]["nodes"], r"^n\d$")  # where it ran, from sacct
        self.assertEqual(s["bad"]["status"], "failed")
        self.assertEqual(s["bad"]["exit_code"], 3)
        out = self.ssim("logs", "good", check=0).stdout
        self.assertEqual(out, "experiment setup\nentity setup\nhello it's \"quoted\"; $(rm -rf /)\n")

    def test_whole_experiment_as_one_batch_job(self):
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: whole, launcher: slurm}}
batch: {{time: "00:10:00"}}
orchestrator: {{port: {port}}}
ensembles:
  - {{name: p, exe: /bin/sh, args: [-c, 'echo $$SLURMD_NODENAME'], replicas: 2}}
""")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        job = re.search(r"batch job (\d+)", p.stderr).group(1)
        self.addCleanup(sh, "scancel", job, check=False)
        with open(os.path.join(self.dir, "whole/.ssim/batch.sbatch")) as f:
            # The database's node, and one of 4 CPUs (sinfo) for the two packed members.
            self.assertIn("#SBATCH --nodes=2", f.read())
        _, s = self.status()
        self.assertEqual(s["batch"]["native_id"], job)

        self.wait_all_completed(4, timeout=60)
        # Both members on one node, not the database's (the other Slurm suite may hold
        # some nodes meanwhile, so which two the job got varies).
        _, s = self.status()
        where = {self.ssim("logs", n, check=0).stdout.strip() for n in ("p_0", "p_1")}
        self.assertEqual(len(where), 1, where)
        self.assertNotIn(s["orchestrator"]["nodes"], where | {""})

    def test_train_then_evaluate_fits_a_two_node_job_and_one_that_cannot_fit_is_never_submitted(self):
        # The evaluation waits for the trainer: it takes over the trainer's nodes.
        self.write("experiment.yaml", """
experiment: {name: te, launcher: slurm}
batch: {time: "00:10:00"}
models:
  - {name: train, exe: /bin/sh, args: [-c, 'echo $$SLURMD_NODENAME'], run: {nodes: 2, ntasks: 2}}
  - {name: eval, exe: /bin/sh, args: [-c, 'echo $$SLURMD_NODENAME'], run: {nodes: 1}, after: [train]}
""")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        job = re.search(r"batch job (\d+)", p.stderr).group(1)
        self.addCleanup(sh, "scancel", job, check=False)
        with open(os.path.join(self.dir, "te/.ssim/batch.sbatch")) as f:
            self.assertIn("#SBATCH --nodes=2", f.read())

        self.wait_all_completed(3, timeout=90)
        trained_on = set(self.ssim("logs", "train", check=0).stdout.split())
        self.assertEqual(len(trained_on), 2)
        self.assertIn(self.ssim("logs", "eval", check=0).stdout.strip(), trained_on)
        # A third whole node that no step waits for cannot fit a 2-node job: said before submitting.
        with open(os.path.join(self.dir, "experiment.yaml")) as f:
            text = f.read().replace('batch: {time: "00:10:00"}', 'batch: {time: "00:10:00", nodes: 2}')
        self.write("experiment.yaml", text + "  - {name: other, exe: /bin/true, run: {nodes: 1}}\n")
        before = sh("squeue", "-h", "-o", "%i").stdout.split()
        p = self.ssim("run", "experiment.yaml", "--batch", "--overwrite", check=2)
        self.assertIn("other needs 1 node(s) of its own", p.stderr)
        self.assertIn("the experiment needs 3 nodes", p.stderr)
        self.assertEqual(sh("squeue", "-h", "-o", "%i").stdout.split(), before)  # nothing submitted

    def test_an_outside_scancel_of_a_step_reads_cancelled_as_slurm_records_it(self):
        self.allocate(2)
        self.write("experiment.yaml", "experiment: {name: sc, launcher: slurm}\n"
                   "models:\n  - {name: m, exe: /bin/sleep, args: ['60'], run: {ntasks: 2}}\n")
        run = self.run_until("sc", "m", lambda e: e["status"] == "running" and "." in (e.get("native_id") or ""),
                             what="running as a step")
        step = self.status()[1]["m"]["native_id"]
        sh("scancel", step)
        run.communicate(timeout=90)
        m = self.status()[1]["m"]
        self.assertEqual(m["status"], "cancelled", m)
        self.assertIn("CANCELLED", m["reason"])
        wait_for(lambda: sacct([step])[step][2].startswith("CANCELLED"), timeout=30, what="sacct to agree")

    def test_a_rank_killed_by_sigkill_fails_its_step_and_retries_run_it_again(self):
        # What the OOM killer does to one rank: Slurm calls the step CANCELLED; ssim's own
        # record of the task (signal 9, first) makes it a failure that retries: reruns.
        self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: oom, launcher: slurm}
models:
  - name: t
    exe: /bin/sh
    args: [-c, 'if [ "$$SLURM_PROCID" = 1 ] && [ ! -e once ]; then touch once; kill -9 $$$$; fi; sleep 1']
    run: {ntasks: 2, nodes: 2}
    retries: 1
""")
        p = self.ssim("run", "experiment.yaml", timeout=180)
        _, s = self.status()
        t = s["t"]
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr + json.dumps(t))
        self.assertEqual((t["status"], t["attempt"]), ("completed", 2), t)
        first = t["earlier_attempts"][0]
        self.assertIn("killed by signal 9", json.dumps(first))

    def test_a_lost_node_under_a_trainer_fails_it_within_seconds_naming_the_node(self):
        # A node dies under a 4-rank trainer: its ranks vanish without a word and its
        # step daemon never reports (stopped here: srun then waits as it does for Slurm's
        # node timeout, minutes); the ranks left fail at once ("Connection closed by
        # peer"). ssim's own records decide: the step is ended and the entity failed,
        # naming the node, well before srun would have given up.
        self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: lostnode, launcher: slurm}
models:
  - name: t
    exe: /bin/sh
    args: [-c, 'while [ ! -e ../gone ]; do sleep 0.1; done; echo "RuntimeError: Connection closed by peer" >&2; exit 1']
    run: {ntasks: 4, nodes: 2}
""")
        run = self.run_until("lostnode", "t", lambda e: e["status"] == "running" and "." in (e.get("native_id") or ""),
                             what="running as a step")
        exp_id = self.manifest("lostnode")["id"]
        dead = self.nodes[1]

        def tasks_on_dead_node():
            """(task pid, its slurmstepd) for the ranks on `dead`."""
            found = []
            for pid in processes_with_env("SSIM_EXPERIMENT_ID", exp_id):
                try:
                    with open(f"/proc/{pid}/environ", "rb") as f:
                        if f"SLURMD_NODENAME={dead}".encode() not in f.read().split(b"\0"):
                            continue
                    with open(f"/proc/{pid}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                    with open(f"/proc/{ppid}/cmdline", "rb") as f:
                        if f.read().startswith(b"slurmstepd"):
                            found.append((pid, ppid))
                except OSError:
                    pass
            return found

        wait_for(lambda: len(tasks_on_dead_node()) == 2, what="the two ranks on the node to lose")
        tasks = tasks_on_dead_node()
        for _, stepd in tasks:  # the node's step daemon goes silent...
            os.kill(stepd, signal.SIGSTOP)
            self.addCleanup(os.kill, stepd, signal.SIGCONT)
        def tree(pid):
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as f:
                    children = [int(c) for c in f.read().split()]
            except OSError:
                children = []
            return [pid] + [p for c in children for p in tree(c)]

        for victim in [p for pid, _ in tasks for p in tree(pid)]:  # ...and its ranks vanish without a word
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                pass
        open(os.path.join(self.dir, "lostnode/gone"), "w").close()
        self.assertEqual(run.wait(timeout=90), 1)
        t = self.status()[1]["t"]
        self.assertEqual(t["status"], "failed", t)
        self.assertIn(f"no rank on {dead} recorded an end: the node may be lost", t["reason"])
        self.assertIn("Connection closed by peer", t["reason"])

    def test_shell_wiring_and_failing_setup_lines_across_two_nodes(self):
        # As a site runs it: ssim started from dash inside a DDP job's environment (RANK,
        # MASTER_*), ranks on two node names; setup lines that fail inside a function or
        # end the step before the program, in steps spread over both nodes.
        self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: site2, launcher: slurm}
models:
  - name: four
    exe: /bin/sh
    args: [-c, 'echo $$RANK $$WORLD_SIZE $$MASTER_ADDR $$MASTER_PORT $$SLURMD_NODENAME > told.$$SLURM_PROCID']
    run: {ntasks: 4, tasks_per_node: 2}
  - name: lone
    exe: /bin/sh
    args: [-c, 'echo $$RANK $$WORLD_SIZE $$MASTER_PORT']
  - name: func
    exe: /bin/touch
    args: [ran]
    setup: ["f() { echo function-why >&2; false; }; f"]
    run: {ntasks: 2, tasks_per_node: 1}
  - name: quits
    exe: /bin/touch
    args: [ran]
    setup: ["exit 0"]
    run: {ntasks: 2, tasks_per_node: 1}
""")
        env = dict(self.env, RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="10.9.9.9", MASTER_PORT="29500")
        p = subprocess.run(["/bin/sh", "-c", f"exec {SSIM} run experiment.yaml"], cwd=self.dir, env=env,
                           capture_output=True, text=True, timeout=180)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(sum("replaced by ssim's rank wiring" in l for l in p.stderr.splitlines()), 1, p.stderr)
        told = []
        for r in range(4):
            with open(os.path.join(self.dir, f"site2/four/told.{r}")) as f:
                told.append(f.read().split())
        self.assertEqual([t[:2] for t in told], [[str(r), "4"] for r in range(4)], told)
        self.assertEqual(len({(t[2], t[3]) for t in told}), 1, told)  # every rank meets rank 0
        self.assertNotIn(told[0][2], ("10.9.9.9",))
        self.assertNotEqual(told[0][3], "29500")
        self.assertEqual(sorted({t[4] for t in told}), sorted(self.nodes))  # two node names
        _, s = self.status()
        lone = self.ssim("logs", "lone", check=0).stdout.split()
        self.assertEqual(lone[:2], ["0", "1"])
        self.assertGreaterEqual(int(lone[2]), 20000)
        self.assertEqual(s["func"]["status"], "failed", s["func"])
        self.assertIn("setup line 1 failed: f() { echo function-why >&2; false; }; f (exit 1): function-why",
                      s["func"]["last_error"])
        self.assertEqual(s["quits"]["status"], "failed", s["quits"])
        for name in ("func", "quits"):
            self.assertFalse(os.path.exists(os.path.join(self.dir, f"site2/{name}/ran")), name)

    def test_a_batch_experiment_resumes_as_a_batch_job_keeping_what_completed(self):
        self.write("experiment.yaml", f"""
experiment: {{name: again, launcher: slurm}}
batch: {{time: "00:10:00"}}
models:
  - {{name: first, exe: /bin/sh, args: [-c, 'echo ran >> {self.dir}/first.log']}}
  - {{name: flaky, exe: /bin/sh, args: [-c, 'test -e {self.dir}/ok'], after: [first]}}
""")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        self.addCleanup(sh, "scancel", re.search(r"batch job (\d+)", p.stderr).group(1), check=False)

        def ended(flaky):
            _, s = self.status()
            return s["batch"]["status"] in ("completed", "failed") and s["flaky"]["status"] == flaky
        wait_for(lambda: ended("failed"), timeout=60, what="the first job to end with flaky failed")
        open(os.path.join(self.dir, "ok"), "w").close()
        # Either order of the two flags.
        p = self.ssim("run", "--resume", "experiment.yaml", "--batch")
        self.assertEqual(p.returncode, 0, p.stderr)
        job = re.search(r"batch job (\d+)", p.stderr).group(1)
        self.addCleanup(sh, "scancel", job, check=False)
        with open(os.path.join(self.dir, "again/.ssim/batch.sbatch")) as f:
            self.assertIn("--resume", f.read())
        _, s = self.status()
        self.assertEqual((s["batch"]["native_id"], s["batch"]["attempt"]), (job, 2))
        self.assertEqual(s["first"]["status"], "completed")  # kept, not run again
        wait_for(lambda: ended("completed"), timeout=60, what="the resumed job to complete flaky")
        with open(os.path.join(self.dir, "first.log")) as f:
            self.assertEqual(f.read(), "ran\n")

    def test_a_batch_job_resumed_after_ssim_stop_reads_as_it_ended(self):
        # The stop's cancel marker is the stopped job's: the resumed job that completes
        # reads completed, not "cancelled - stopped by ssim".
        self.write("experiment.yaml", f"""
experiment: {{name: stopped, launcher: slurm}}
batch: {{time: "00:10:00"}}
models:
  - {{name: long, exe: /bin/sh, args: [-c, 'test -e {self.dir}/quick || sleep 300']}}
""")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        self.addCleanup(sh, "scancel", re.search(r"batch job (\d+)", p.stderr).group(1), check=False)
        wait_for(lambda: self.status()[1]["long"]["status"] == "running", timeout=60, what="long running in the job")
        self.ssim("stop", "stopped", timeout=90, check=0)
        wait_for(lambda: self.status()[1]["batch"]["status"] in ("cancelled", "failed", "completed"), timeout=60,
                 what="the stopped job to end")
        open(os.path.join(self.dir, "quick"), "w").close()
        p = self.ssim("run", "experiment.yaml", "--batch", "--resume")
        self.addCleanup(sh, "scancel", re.search(r"batch job (\d+)", p.stderr).group(1), check=False)
        wait_for(lambda: self.status()[1]["batch"]["status"] in ("cancelled", "failed", "completed"), timeout=90,
                 what="the resumed job to end")
        _, s = self.status()
        self.assertEqual((s["batch"]["status"], s["batch"]["attempt"]), ("completed", 2), s["batch"])
        self.assertEqual(s["long"]["status"], "completed", s["long"])

    def test_an_outside_scancel_of_a_batch_job_reads_cancelled_as_slurm_records_it(self):
        self.write("experiment.yaml", """
experiment: {name: outside, launcher: slurm}
batch: {time: "00:10:00"}
models:
  - {name: long, exe: /bin/sleep, args: ['300']}
""")
        p = self.ssim("run", "experiment.yaml", "--batch", check=0)
        job = re.search(r"batch job (\d+)", p.stderr).group(1)
        self.addCleanup(sh, "scancel", job, check=False)
        wait_for(lambda: self.status()[1]["long"]["status"] == "running", timeout=60, what="long running in the job")
        sh("scancel", job)
        wait_for(lambda: self.status()[1]["batch"]["status"] in ("cancelled", "failed", "completed"), timeout=60,
                 what="the job to end")
        wait_for(lambda: sacct([job])[job][2].startswith("CANCELLED"), timeout=30, what="sacct to say CANCELLED")
        batch = self.status()[1]["batch"]
        self.assertEqual(batch["status"], "cancelled", batch)
        self.assertIn("CANCELLED", batch["reason"])

    def test_streaming_example_on_the_cluster(self):
        yaml = os.path.join(EXAMPLES, "streaming/experiment_slurm.yaml")
        self.ssim("run", yaml, check=0, timeout=300)
        _, s = self.status(yaml)
        acct = sacct([e["native_id"] for e in s.values()])
        nodes = {name: acct[e["native_id"]][4] for name, e in s.items()}
        self.assertEqual(nodes, {"orchestrator": "n1", "uploader_0": "n2", "uploader_1": "n3", "trainer": "n4"})
        with open(os.path.join(s["trainer"]["run_dir"], "results.json")) as f:
            r = json.load(f)
        self.assertGreater(r["final_accuracy"], r["chance"] + 0.3)

    def test_dataparallel_example_as_a_batch_job(self):
        # The example for a real GPU cluster, minus what this test cluster lacks
        # (modules, GPUs, a gpu partition).
        with open(os.path.join(EXAMPLES, "dataparallel/experiment_slurm.yaml")) as f:
            text = f.read()
        text = re.sub(r"      setup:\n(        - .*\n)+", "", text)
        text = text.replace("      queue: gpu\n", "").replace('      options: {gres: "gpu:2"}\n', "")
        text = text.replace(", gpus_per_task: 1", "").replace('--epochs, "20"', '--epochs, "3"')
        text = text.replace('env: {OMP_NUM_THREADS: "4", PYTHONUNBUFFERED: "1"}',
                            'env: {OMP_NUM_THREADS: "1", MASTER_ADDR: "127.0.0.1", OMPI_MCA_btl: "^vader"}')
        text = text.replace("exe: python3", "exe: /usr/bin/python3")
        with open(os.path.join(EXAMPLES, "dataparallel/train.py")) as f:
            self.write("dataparallel/train.py", f.read())
        yaml = self.write("dataparallel/experiment.yaml", text)
        self.ssim("run", yaml, check=0, timeout=300)
        _, s = self.status(yaml)
        with open(os.path.join(s["train"]["run_dir"], "results.json")) as f:
            r = json.load(f)
        self.assertEqual(r["workers"], 4)
        self.assertTrue(os.path.exists(os.path.join(s["train"]["run_dir"], "checkpoint.pt")))

    def test_failing_step_reports_exit_code_3(self):
        self.allocate(1)
        self.write("experiment.yaml", "experiment: {name: rc, launcher: slurm}\n"
                   "models:\n  - {name: bad, exe: /bin/sh, args: [-c, 'exit 3'], run: {agent: false}}\n")
        self.ssim("run", "experiment.yaml", check=1)
        _, s = self.status()
        self.assertEqual(s["bad"]["status"], "failed")
        self.assertEqual(s["bad"]["exit_code"], 3)
        step = s["bad"]["native_id"]
        # srun returns before slurmdbd has the step's end: accounting catches up on its own.
        wait_for(lambda: sacct([step])[step][2] != "RUNNING", timeout=30, what="sacct to record the end")
        self.assertEqual(sacct([step])[step][2], "FAILED")
        with open(os.path.join(s["bad"]["run_dir"], ".ssim-step-ends")) as f:
            self.assertEqual(f.read(), "0 3\n")  # the task's own record

    def test_plan_that_does_not_fit_is_refused_before_anything_runs(self):
        self.allocate(2)
        self.write("experiment.yaml", "experiment: {name: big, launcher: slurm}\n"
                   "ensembles:\n  - {name: e, exe: /bin/true, replicas: 3, run: {exclusive: true}}\n")
        p = self.ssim("run", "experiment.yaml", check=2)
        self.assertIn("does not fit", p.stderr)
        self.assertIn("e_2 needs 1 node(s)", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "big")))
        self.write("experiment.yaml", "experiment: {name: big, launcher: slurm}\n"
                   "models:\n  - {name: w, exe: /bin/true, run: {ntasks: 9, mpi: none}}\n")
        p = self.ssim("run", "experiment.yaml", check=2)
        self.assertIn("w: 9 task(s) of 1 CPU(s) do not fit 2 node(s) of 4 CPUs", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "big")))

    def test_allocation_requested_and_released(self):
        self.write("experiment.yaml", "experiment: {name: outside, launcher: slurm}\n"
                   "allocation: {nodes: 2, time: '00:10:00'}\n"
                   "models:\n  - {name: a, exe: /bin/sh, args: [-c, 'echo $$SLURMD_NODENAME'], run: {exclusive: true}}\n"
                   "  - {name: b, exe: /bin/sh, args: [-c, 'echo $$SLURMD_NODENAME']}\n")
        self.ssim("run", "experiment.yaml", check=0)
        m = self.manifest("outside")
        job = m["allocation_job"]
        self.assertTrue(m["allocation_owned"])
        where = {self.ssim("logs", n, check=0).stdout.strip() for n in "ab"}
        self.assertEqual(len(where), 2, where)  # a keeps a node of its own
        wait_for(lambda: sh("squeue", "-h", "-j", job, check=False).stdout.strip() == "", what="allocation released")

    def test_stop_mid_run_cancels_steps_and_allocation(self):
        self.write("experiment.yaml", "experiment: {name: stopme, launcher: slurm}\n"
                   "allocation: {nodes: 1}\n"
                   "models:\n  - {name: long, exe: /bin/sleep, args: ['300'], run: {agent: false}}\n")
        run = self.run_until("stopme", "long", lambda e: e["native_id"], "step id")
        step = self.status()[1]["long"]["native_id"]
        job = self.manifest("stopme")["allocation_job"]
        self.addCleanup(sh, "scancel", job, check=False)
        self.ssim("stop", check=0)
        self.assertEqual(run.wait(timeout=30), 1)
        _, s = self.status()
        self.assertEqual(s["long"]["status"], "cancelled")
        wait_for(lambda: sacct([step])[step][2].startswith("CANCELLED"), what="sacct CANCELLED")
        wait_for(lambda: sh("squeue", "-h", "-j", job, check=False).stdout.strip() == "", what="nothing in squeue")

    def test_kill_9_of_run_then_status_from_sacct(self):
        self.allocate(1)
        self.write("experiment.yaml", "experiment: {name: k9, launcher: slurm}\n"
                   "models:\n  - {name: s, exe: /bin/sleep, args: ['2'], run: {agent: false}}\n")
        run = self.run_until("k9", "s")
        run.kill()
        run.wait()
        wait_for(lambda: self.status()[1]["s"]["status"] == "completed", what="completed after the kill")
        _, s = self.status()
        self.assertEqual(s["s"]["exit_code"], 0)
        self.assertEqual(sacct([s["s"]["native_id"]])[s["s"]["native_id"]][2], "COMPLETED")



@unittest.skipUnless(cluster_up(), "no Slurm cluster (scripts/slurm-cluster.sh up)")
class SlurmAgents(SlurmCase):
    """One-task members inside an allocation run through one ssim agent per node,
    started with a single srun for the whole run."""

    def agents(self):
        """This test's node agents (their folder is under its own): tests of other
        schedulers running beside it have agents too."""
        mine = []
        for pid in sh("pgrep", "-f", "ssim-supervise --agent", check=False).stdout.split():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if (self.dir + "/").encode() in f.read():
                        mine.append(pid)
            except OSError:
                pass  # it ended
        return mine

    def agent_pid(self, agents_dir, node):
        """The pid of `node`'s agent, from its heartbeat file."""
        with open(os.path.join(agents_dir, node, "alive")) as f:
            return int(f.read().split()[0])

    def kill_agent(self, agents_dir, node):
        """SIGKILL to the agent of `node` and to the keepers it forked, as a node's death would."""
        agent = self.agent_pid(agents_dir, node)
        keepers = [int(p) for p in sh("pgrep", "-P", str(agent), check=False).stdout.split()]
        os.kill(agent, signal.SIGKILL)
        for k in keepers:
            os.kill(k, signal.SIGKILL)

    def agents_dir(self, exp):
        base = os.path.join(self.dir, exp, ".ssim/agents")
        [generation] = os.listdir(base)
        return os.path.join(base, generation)

    def test_a_whole_node_steps_nodes_join_the_pool_once_it_ended(self):
        # A 2-node model holds n1-n2 by itself; once it ends, the members waiting for room
        # on the other two nodes run there too (through agents started there then).
        self.allocate(4)
        self.write("experiment.yaml", """
experiment: {name: back, launcher: slurm}
models:
  - {name: big, exe: /bin/sleep, args: ['2'], run: {nodes: 2, ntasks: 2}}
ensembles:
  - {name: m, exe: /bin/sh, args: [-c, 'sleep 0.5; echo $$SLURMD_NODENAME'], replicas: 120}
""")
        self.ssim("run", "experiment.yaml", check=0, timeout=180)
        _, s = self.status()
        big = s.pop("big")
        held = set(hostnames(big["nodes"]))
        self.assertEqual(len(held), 2, big)
        after = [e for e in s.values() if e["start"] > big["end"]]
        self.assertTrue(after, "every member started before big ended: the test proves nothing")
        where = {self.ssim("logs", name, check=0).stdout.strip() for name in s}
        self.assertTrue(held <= where, (held, where))  # big's nodes ran members too
        self.assertEqual({e["status"] for e in s.values()}, {"completed"})

    def test_members_through_node_agents_end_with_exact_exit_codes(self):
        job = self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: ag, launcher: slurm}
ensembles:
  - name: m
    exe: /bin/sh
    args: [-c, 'echo "$$SLURMD_NODENAME $$SLURM_PROCID $$SLURM_NTASKS"; exit $(code)']
    params: {code: [0, 0, 3]}
    replicas: 8
""")
        self.ssim("run", "experiment.yaml", check=1, timeout=120)
        _, s = self.status()
        self.assertEqual(len(s), 24)
        steps = {e["native_id"] for e in s.values()}
        self.assertEqual(len(steps), 1, steps)  # every member ran in the agents' one step
        [step] = steps
        wait_for(lambda: sacct([step])[step][2] != "RUNNING", timeout=30, what="sacct to record the agents' end")
        acct = sacct([step])
        self.assertEqual((acct[step][1], acct[step][2]), ("ssim-agents", "COMPLETED"))
        used = set()
        for name, e in s.items():
            code = int(e["params"]["code"])
            self.assertEqual((e["status"], e["exit_code"]), ("completed" if code == 0 else "failed", code), name)
            self.assertIn(e["nodes"], self.nodes, name)
            with open(os.path.join(e["run_dir"], name + ".out")) as f:
                self.assertEqual(f.read(), f"{e['nodes']} 0 1\n", name)  # its node's view, as a step's
            # Nothing of ssim's in its folder: its record is in its keeper's journal.
            self.assertEqual(sorted(os.listdir(e["run_dir"])), [name + ".err", name + ".out"], name)
            used.add(e["nodes"])
        self.assertEqual(used, set(self.nodes))
        with open(os.path.join(self.dir, "ag/.ssim/ssim.log")) as f:
            self.assertEqual(f.read().count("node agents started"), 1)
        # The agents left with the run: no process, no step.
        wait_for(lambda: not self.agents(), timeout=10, what="the agents to leave")
        self.assertEqual(sh("squeue", "-h", "-s", "-j", job).stdout.strip(), "")

    def test_kill_9_of_run_leaves_agents_that_finish_and_record_every_outcome(self):
        self.allocate(1)
        self.write("experiment.yaml", """
experiment: {name: k9a, launcher: slurm}
ensembles:
  - {name: m, exe: /bin/sh, args: [-c, 'sleep 2; exit $(code)'], params: {code: [0, 5]}, replicas: 2}
""")
        run = self.run_until("k9a", "m_3")
        run.kill()
        run.wait()
        wait_for(lambda: all(e["status"] in ("completed", "failed") for e in self.status()[1].values()),
                 timeout=30, what="every member to end after the kill")
        _, s = self.status()
        for name, e in s.items():
            code = int(e["params"]["code"])
            self.assertEqual((e["status"], e["exit_code"]), ("completed" if code == 0 else "failed", code), name)
        self.assertTrue(self.agents())  # still there: they leave once ssim has been silent a while

    def test_stop_ends_every_member_and_the_agents_within_seconds(self):
        job = self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: stopa, launcher: slurm}
ensembles:
  - {name: m, exe: /bin/sleep, args: ["300"], replicas: 8}
""")
        run = self.run_until("stopa", "m_7")
        wait_for(lambda: all(e["status"] == "running" for e in self.status()[1].values()), what="all running")
        self.ssim("stop", check=0)
        self.assertEqual(run.wait(timeout=30), 1)
        _, s = self.status()
        self.assertEqual({e["status"] for e in s.values()}, {"cancelled"})
        # Its own processes (by the experiment's id): other tests run `sleep 300` beside it.
        exp_id = self.manifest("stopa")["id"]
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=10, what="no member left")
        wait_for(lambda: not self.agents(), timeout=10, what="no agent left")
        self.assertEqual(sh("squeue", "-h", "-s", "-j", job).stdout.strip(), "")

    def test_an_outside_scancel_of_the_allocation_cancels_every_member_with_slurms_words(self):
        job = self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: gone, launcher: slurm}
ensembles:
  - {name: m, exe: /bin/sleep, args: ["300"], replicas: 12}
""")
        run = self.run_until("gone", "m_7")  # 8 run on the two 4-CPU nodes, 4 wait for room
        sh("scancel", job)
        self.assertEqual(run.wait(timeout=60), 1)
        _, s = self.status()
        for name, e in s.items():  # not "failed: node lost" nor "killed by SIGTERM"
            self.assertEqual(e["status"], "cancelled", (name, e))
            self.assertIn(f"the allocation {job} ended: CANCELLED by {os.getuid()}", e["reason"], name)
        with open(os.path.join(self.dir, "gone/.ssim/ssim.log")) as f:
            self.assertIn(f"allocation {job} ended under the run", f.read())
        exp_id = self.manifest("gone")["id"]  # its own processes: other tests run `sleep 300` beside it
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=30, what="no member left")

    def test_a_lost_node_fails_its_members_with_a_reason_and_retries_run_on_the_others(self):
        self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: lost, launcher: slurm}
ensembles:
  - {name: m, exe: /bin/sleep, args: ["6"], replicas: 4, retries: 1, run: {cpus_per_task: 2}}
""")
        run = self.run_until("lost", "m_3")
        wait_for(lambda: all(e["status"] == "running" for e in self.status()[1].values()), what="all running")
        _, s = self.status()
        dead = s["m_3"]["nodes"]
        on_dead = sorted(n for n, e in s.items() if e["nodes"] == dead)
        self.assertEqual(len(on_dead), 2)  # two of 2 CPUs on each 4-CPU node
        # The node dies: its agent and everything it started, at once.
        self.kill_agent(self.agents_dir("lost"), dead)
        for name in on_dead:
            kill_group_if_of(s[name]["pid"], self.manifest("lost")["id"])
        self.assertEqual(run.wait(timeout=90), 0)  # the retries completed elsewhere
        _, s = self.status()
        for name, e in s.items():
            self.assertEqual(e["status"], "completed", name)
            self.assertNotEqual(e["nodes"], dead, name)
        for name in on_dead:
            [earlier] = s[name]["earlier_attempts"]
            self.assertEqual(earlier["status"], "failed")
            self.assertIn(f"node {dead} lost", earlier["reason"])
        with open(os.path.join(self.dir, "lost/.ssim/ssim.log")) as f:
            self.assertIn(f"node {dead} is lost", f.read())


    def test_an_attempt_given_up_on_a_stopped_agents_node_is_ended_there_not_left_running(self):
        # The agent is SIGSTOPped: alive, silent. ssim gives up on the node after its
        # silence and reruns the members elsewhere; the first attempts must not run on.
        self.allocate(3)  # a node each, and one free for the rerun
        self.write("experiment.yaml", """
experiment: {name: frozen, launcher: slurm}
ensembles:
  - {name: m, exe: /bin/sleep, args: ["300"], replicas: 2, retries: 1, run: {cpus_per_task: 4}}
""")
        run = self.run_until("frozen", "m_1")
        wait_for(lambda: all(e["status"] == "running" for e in self.status()[1].values()), what="all running")
        _, s = self.status()
        frozen = s["m_1"]["nodes"]
        first = {n: e["pid"] for n, e in s.items() if e["nodes"] == frozen}
        self.assertEqual(list(first), ["m_1"])
        agent = self.agent_pid(self.agents_dir("frozen"), frozen)
        os.kill(agent, signal.SIGSTOP)
        self.addCleanup(lambda: os.kill(agent, signal.SIGCONT) if os.path.exists(f"/proc/{agent}") else None)
        # ssim gives up on the node (its agent silent 15 s) and reruns them on the other.
        wait_for(lambda: all(self.status()[1][n]["attempt"] == 2 for n in first), timeout=60,
                 what="the members of the stopped agent's node to be rerun")
        exp_id = self.manifest("frozen")["id"]
        wait_for(lambda: not set(first.values()) & set(processes_with_env("SSIM_EXPERIMENT_ID", exp_id)),
                 timeout=30, what="the first attempts to end on the stopped agent's node")
        _, s = self.status()
        for name in first:
            [earlier] = s[name]["earlier_attempts"]
            self.assertIn(f"node {frozen} lost", earlier["reason"])
            self.assertNotEqual(s[name]["nodes"], frozen)
        self.ssim("stop", check=0)
        self.assertEqual(run.wait(timeout=60), 1)

    def test_a_drained_node_gets_no_more_members_until_it_is_resumed(self):
        self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: drain, launcher: slurm}
ensembles:
  - {name: m, exe: /bin/sleep, args: ["3"], replicas: 80}
""")
        run = self.run_until("drain", "m_0")
        drained = self.status()[1]["m_0"]["nodes"]
        # An administrator drains it (a failed health check): Slurm still starts steps of a
        # running job there, so ssim must stop placing on it itself.
        self.addCleanup(sh, "scontrol", "update", f"nodename={drained}", "state=resume", check=False)
        sh("scontrol", "update", f"nodename={drained}", "state=drain", "reason=ssim test")
        drained_at = time.time()
        log = os.path.join(self.dir, "drain/.ssim/ssim.log")
        said = f"node {drained} is drained by slurm (ssim test): nothing more is placed there"
        wait_for(lambda: said in open(log).read(), timeout=30, what="the drain to be seen")
        seen_at = time.time()
        wait_for(lambda: sum(e["start"] > seen_at for e in self.status()[1].values()) >= 4, timeout=30,
                 what="members started while it is drained")
        # Then it is resumed: ssim places members there again (asked every 10 s).
        sh("scontrol", "update", f"nodename={drained}", "state=resume")
        resumed_at = time.time()
        self.assertEqual(run.wait(timeout=180), 0)  # what ran there ended as it would have
        _, s = self.status()
        while_drained = [e for e in s.values() if seen_at < e["start"] < resumed_at]
        self.assertGreaterEqual(len(while_drained), 4)
        for e in while_drained:
            self.assertNotEqual(e["nodes"], drained, e["name"])
        after = [e for e in s.values() if e["start"] > resumed_at + 12]
        self.assertTrue(any(e["nodes"] == drained for e in after), [(e["name"], e["nodes"]) for e in after])
        self.assertTrue(all(e["status"] == "completed" for e in s.values()))
        self.assertLess(seen_at - drained_at, 25)
        with open(log) as f:
            self.assertIn(f"node {drained} is back in service: members are placed there again", f.read())

    def test_a_node_whose_agent_was_lost_gets_a_new_one_once_repaired_and_resumed(self):
        self.allocate(2)
        self.write("experiment.yaml", """
experiment: {name: revive, launcher: slurm}
ensembles:
  - {name: m, exe: /bin/sleep, args: ["3"], replicas: 48, retries: 1, run: {cpus_per_task: 2}}
""")
        run = self.run_until("revive", "m_0")
        dead = self.status()[1]["m_0"]["nodes"]
        first = self.agents_dir("revive")
        self.kill_agent(first, dead)  # the agent dies with its keepers; the node stays up
        log = os.path.join(self.dir, "revive/.ssim/ssim.log")

        def logged(text):
            with open(log) as f:
                return text in f.read()
        wait_for(lambda: logged(f"node {dead} is lost"), timeout=40, what="the agent to be lost")
        # An administrator takes the node out, repairs it and gives it back.
        self.addCleanup(sh, "scontrol", "update", f"nodename={dead}", "state=resume", check=False)
        sh("scontrol", "update", f"nodename={dead}", "state=drain", "reason=ssim test")
        wait_for(lambda: logged(f"node {dead}, whose agent was lost, is drained by slurm (ssim test)"),
                 timeout=30, what="the drain to be seen")
        sh("scontrol", "update", f"nodename={dead}", "state=resume")
        wait_for(lambda: logged(f"node {dead} is back in service after its agent was lost"),
                 timeout=30, what="the resume to be seen")
        revived_at = time.time()
        self.assertEqual(run.wait(timeout=240), 0)
        _, s = self.status()
        self.assertTrue(all(e["status"] == "completed" for e in s.values()))
        later = [e for e in s.values() if e["start"] > revived_at]
        self.assertTrue(any(e["nodes"] == dead for e in later), [(e["name"], e["nodes"]) for e in later])
        self.assertEqual(len(os.listdir(os.path.dirname(first))), 2)  # the first launch, and the new agent's
        self.assertTrue(logged(f"node {dead} is back in service: members are placed there again"))


if __name__ == "__main__":
    unittest.main()
