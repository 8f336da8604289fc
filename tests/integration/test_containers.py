"""Entities in containers (docs/containers.md): Charliecloud for real, from Debian, in an
image built from Debian's packages (container_image.py) on the local launcher and on the
Slurm test cluster; Apptainer, Singularity, Podman and Docker through the simulators in
tests/fixtures/fake-containers, which fail as the real runtimes do."""
import json
import os
import shutil
import signal
import subprocess
import unittest

from container_image import MARKER, test_image
from ssimtest import SSIM, SsimTestCase, processes_with_env, wait_for
from test_distributed import assert_same_weights, single_process_weights
from test_slurm import SlurmCase, cluster_up

FAKES = os.path.abspath(os.path.join(os.path.dirname(__file__), "../fixtures/fake-containers"))
TRAIN = os.path.abspath(os.path.join(os.path.dirname(__file__), "../fixtures/trainers/train_dist.py"))
TORCHRUN = os.path.abspath(os.path.join(os.path.dirname(__file__), "../fixtures/trainers/torchrun_stand_in.py"))
IMAGE = test_image()

# Says where it runs and what it was given, streams tensors and metrics to the host.
PRODUCER = f"""
import json, os, sys
import numpy, ssim, ssim.metrics
c = ssim.Client()
for i in range(4):
    c.put_tensor(f"batch_{{i}}", numpy.full(8, float(i)))
    ssim.metrics.log("loss", 1.0 / (i + 1), step=i)
ssim.metrics.flush()
json.dump({{"inside": os.path.exists("/{MARKER}"), "cwd": os.getcwd(), "user": os.environ.get("USER"),
           "run_dir": os.environ.get("SSIM_RUN_DIR"), "entity": os.environ.get("SSIM_ENTITY"),
           "python": sys.executable}}, open("inside.json", "w"))
"""
TRAINER = """
import ssim
c = ssim.Client()
total = 0.0
for i in range(4):
    if not c.poll_tensor(f"batch_{i}", 50, 400):
        raise SystemExit(f"batch_{i} never came")
    total += float(c.get_tensor(f"batch_{i}").sum())
print("total", total)
"""
# The DDP trainer (train_dist.py, rank<R>.json), then where it ran and a metric.
TRAIN_INSIDE = f"""
import json, os, runpy
runpy.run_path("train_dist.py", run_name="__main__")
import ssim.metrics
ssim.metrics.log("loss", 0.125, step=30)
ssim.metrics.flush()
with open(f"inside{{os.environ['RANK']}}.json", "w") as f:
    json.dump({{"inside": os.path.exists("/{MARKER}"), "host": os.environ.get("SLURMD_NODENAME")}}, f)
"""


# Each of two tasks stores a tensor in the node's colocated database and reads the other's.
COLOCATED_TASK = """
import json, os
import numpy, ssim
rank = int(os.environ["RANK"])
c = ssim.Client()
c.put_tensor(f"r{rank}", numpy.full(4, float(rank)))
assert c.poll_tensor(f"r{1 - rank}", 50, 400), "the other task's tensor never came"
json.dump({"ssdb": os.environ["SSDB"], "other": c.get_tensor(f"r{1 - rank}").tolist()}, open(f"colo{rank}.json", "w"))
"""


def ddp_experiment(case, launcher, run, exe="python3"):
    shutil.copy(TRAIN, case.dir)
    case.write("train_inside.py", TRAIN_INSIDE)
    case.write("experiment.yaml", f"""
experiment: {{name: ddp, launcher: {launcher}}}
models:
  - name: train
    exe: {exe}
    args: [train_inside.py]
    run: {run}
    files: {{copy: [train_dist.py, train_inside.py]}}
    env: {{OMP_NUM_THREADS: "1"}}
    container: {{runtime: charliecloud, image: {IMAGE}}}
""")


def torchrun_experiment(case, launcher, run):
    """The DDP trainer under a torchrun inside the container, which starts the workers:
    torchrun_stand_in.py (Debian 12's torchrun fails on Python 3.11), told only by ssim."""
    shutil.copy(TORCHRUN, os.path.join(case.dir, "torchrun"))
    ddp_experiment(case, launcher, run, exe=os.path.join(case.dir, "torchrun"))


def read_ranks(case, prefix, n):
    out = []
    for r in range(n):
        with open(os.path.join(case.dir, f"ddp/train/{prefix}{r}.json")) as f:
            out.append(json.load(f))
    return out


@unittest.skipUnless(IMAGE, "no Charliecloud (ch-run), mmdebstrap or root to build the test image")
class Charliecloud(SsimTestCase):
    def experiment(self, models):
        self.write("producer.py", PRODUCER)
        self.write("trainer.py", TRAINER)
        self.write("experiment.yaml", f"experiment: {{name: ct}}\norchestrator: {{port: auto}}\nmodels:\n{models}")

    def test_a_producer_in_a_container_streams_to_a_trainer_on_the_host(self):
        self.env.pop("USER", None)  # ch-run refuses to start without it: ssim gives it
        self.experiment(f"""
  - name: producer
    exe: python3
    args: [producer.py]
    files: {{copy: [producer.py]}}
    container: {{runtime: charliecloud, image: {IMAGE}}}
  - name: trainer
    exe: /usr/bin/python3
    args: [trainer.py]
    files: {{copy: [trainer.py]}}
""")
        p = self.ssim("run", "experiment.yaml", timeout=180)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(self.dir, "ct/producer/inside.json")) as f:
            inside = json.load(f)
        run_dir = os.path.join(self.dir, "ct/producer")
        self.assertEqual(inside, {"inside": True, "cwd": run_dir, "user": "root", "run_dir": run_dir,
                                  "entity": "producer", "python": "/usr/bin/python3"})
        with open(os.path.join(self.dir, "ct/trainer/trainer.out")) as f:
            self.assertIn("total 48.0", f.read())
        # The metrics written inside reach the host's readers.
        p = self.ssim("status", "experiment.yaml", "-o", "name,loss", check=0)
        self.assertRegex(p.stdout, r"producer\s+0\.25")

    def test_a_program_inside_uses_its_colocated_database_on_the_host(self):
        # Two tasks share the node's database (on the host, password on); inside, the
        # node folder's socket is not there: they reach it on loopback TCP.
        self.write("colo.py", COLOCATED_TASK)
        self.write("experiment.yaml", f"""experiment: {{name: ct}}
models:
  - name: colo
    exe: python3
    args: [colo.py]
    files: {{copy: [colo.py]}}
    run: {{ntasks: 2}}
    colocated_db: {{}}
    container: {{runtime: charliecloud, image: {IMAGE}}}
""")
        p = self.ssim("run", "experiment.yaml", timeout=180)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        got = []
        for rank in (0, 1):
            with open(os.path.join(self.dir, f"ct/colo/colo{rank}.json")) as f:
                got.append(json.load(f))
        self.assertRegex(got[0]["ssdb"], r"^127\.0\.0\.1:\d+$")
        self.assertEqual(got[0]["ssdb"], got[1]["ssdb"])  # one database for the node's tasks
        self.assertEqual([g["other"] for g in got], [[1.0] * 4, [0.0] * 4])

    def test_validate_and_dry_run_say_what_cannot_start_and_the_exact_command(self):
        self.experiment(f"""
  - name: producer
    exe: python3
    args: [producer.py]
    container: {{runtime: charliecloud, image: {IMAGE}}}
""")
        p = self.ssim("run", "--dry-run", "experiment.yaml", check=0)
        run_dir = os.path.join(self.dir, "ct/producer")
        self.assertIn(f"command: ch-run --bind={self.dir}/ct --bind=", p.stdout)
        self.assertIn(f"--cd={run_dir} {IMAGE} -- python3 producer.py", p.stdout)
        cases = {
            "runtime: apptainer, image: /nonexistent.sif": "container.runtime: no apptainer on the PATH",
            "runtime: charliecloud, image: ./nosuch": 'container.image: "' + self.dir + '/nosuch" does not exist',
        }
        for container, message in cases.items():
            with self.subTest(container=container):
                self.experiment(f"  - {{name: m, exe: python3, container: {{{container}}}}}\n")
                p = self.ssim("validate", "experiment.yaml", check=2)
                self.assertIn("experiment.yaml:4:", p.stderr)
                self.assertIn(message, p.stderr)
        self.experiment(f"  - {{name: m, exe: simulate, container: {{runtime: charliecloud, image: {IMAGE}}}}}\n")
        p = self.ssim("run", "experiment.yaml", check=2)
        self.assertIn('experiment.yaml:4:20: models[0].exe: no program "simulate" in the image', p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "ct")))  # nothing written
        self.write("experiment.yaml", "experiment: {name: ct}\norchestrator: {binary: keydb-server, container: "
                                      f"{{runtime: charliecloud, image: {IMAGE}}}}}\nmodels: [{{name: m, exe: true}}]\n")
        p = self.ssim("validate", "experiment.yaml", check=2)
        self.assertIn('experiment.yaml:2:49: orchestrator.container: no program "keydb-server" in the image', p.stderr)

    def test_gpus_in_an_image_without_the_driver_s_library_are_warned_of_and_given(self):
        # The test image has no libcuda.so.1 (ch-fromhost --nvidia never ran on it): CUDA
        # inside would see no GPU. Said at validate and run; the run goes on, the rank
        # given the device ssim chose.
        self.env["SSIM_GPUS"] = "0,1"
        self.experiment(f"""
  - name: train
    exe: python3
    args: [-c, 'import os; print(os.environ["CUDA_VISIBLE_DEVICES"])']
    run: {{gpus_per_task: 1}}
    container: {{runtime: charliecloud, image: {IMAGE}}}
""")
        warning = (f"experiment.yaml:9:47: models[0].container.image: warning: the image {IMAGE} has no libcuda.so.1")
        p = self.ssim("validate", "experiment.yaml")
        self.assertIn(warning, p.stderr)
        self.assertIn(f"run `ch-fromhost --nvidia {IMAGE}` on a GPU node first", p.stderr)
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(warning, p.stderr)
        self.assertEqual(self.ssim("logs", "train").stdout, "0\n")

    def test_a_run_folder_under_tmp_with_tmpdir_elsewhere_is_refused_before_it_starts(self):
        # ch-run binds the host's $TMPDIR as the container's /tmp: a run folder under the
        # host's /tmp cannot be bound there, and ch-run failed at the start ("can't mkdir
        # ... under existing bind-mount"). Said by validate instead, with the way out.
        if not os.path.realpath(self.dir).startswith("/tmp/"):
            self.skipTest("the test folder is not under /tmp")
        elsewhere = os.path.join(self.dir, "..", os.path.basename(self.dir) + "-tmpdir")
        os.makedirs(elsewhere)
        self.addCleanup(shutil.rmtree, elsewhere, True)
        self.experiment(f"  - {{name: m, exe: python3, container: {{runtime: charliecloud, image: {IMAGE}}}}}\n")
        self.env["TMPDIR"] = os.path.realpath(elsewhere)
        for verb in ("validate", "run"):
            p = self.ssim(verb, "experiment.yaml", check=2)
            self.assertIn("experiment.yaml:4:40: models[0].container: ch-run makes $TMPDIR (" +
                          os.path.realpath(elsewhere) + ") the container's /tmp, so ", p.stderr)
            self.assertIn("put experiment.path outside /tmp, or run ssim with TMPDIR unset or /tmp", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "ct")))  # nothing written
        del self.env["TMPDIR"]
        self.ssim("validate", "experiment.yaml", check=0)

    def test_stop_ends_what_runs_inside(self):
        self.experiment(f"""
  - name: sleeper
    exe: python3
    args: [-c, "import time; open('started', 'w').close(); time.sleep(600)"]
    container: {{runtime: charliecloud, image: {IMAGE}}}
""")
        self.ssim("run", "--detach", "experiment.yaml", check=0)
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "ct/sleeper/started")), timeout=60, what="started")
        exp_id = self.manifest("ct")["id"]
        self.assertTrue(processes_with_env("SSIM_EXPERIMENT_ID", exp_id))
        self.ssim("stop", "experiment.yaml", check=0)
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=30, what="nothing left")
        self.assertEqual(self.status()[1]["sleeper"]["status"], "cancelled")

    def test_the_database_in_a_container_serves_entities_on_the_host(self):
        self.write("trainer.py", TRAINER.replace("total = 0.0", "import numpy\nfor i in range(4):\n"
                                                 "    c.put_tensor(f'batch_{i}', numpy.full(8, float(i)))\ntotal = 0.0"))
        self.write("experiment.yaml", f"""
experiment: {{name: ct}}
orchestrator: {{port: auto, container: {{runtime: charliecloud, image: {IMAGE}}}}}
models:
  - name: trainer
    exe: /usr/bin/python3
    args: [trainer.py, hold]
    files: {{copy: [trainer.py]}}
""")
        p = self.ssim("run", "--dry-run", "experiment.yaml", check=0)
        self.assertIn(f"--container-word=ch-run --container-word=--bind={self.dir}/ct/orchestrator", p.stdout)
        # No Redis server on this PATH: only the image's can run.
        bin_dir = os.path.join(self.dir, "bin")
        os.makedirs(bin_dir)
        os.symlink(shutil.which("ch-run"), os.path.join(bin_dir, "ch-run"))
        self.env["PATH"] = bin_dir
        p = self.ssim("run", "experiment.yaml", timeout=180)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(self.dir, "ct/trainer/trainer.out")) as f:
            self.assertIn("total 48.0", f.read())
        # The server ran in the image: its snapshot is where the host looks for it.
        self.assertTrue(os.path.exists(os.path.join(self.dir, "ct/orchestrator/dump.rdb")))
        with open(os.path.join(self.dir, "ct/orchestrator/orchestrator.err")) as f:
            self.assertNotIn("error", f.read().lower())

    def test_run_time_ends_what_runs_inside(self):
        self.experiment(f"""
  - name: sleeper
    exe: python3
    args: [-c, "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"]
    run: {{time: "00:02"}}
    container: {{runtime: charliecloud, image: {IMAGE}}}
""")
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        doc, s = self.status()
        self.assertEqual(s["sleeper"]["status"], "failed")
        self.assertIn("time limit (run.time) reached", s["sleeper"]["reason"])
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", doc["id"]), [])  # SIGKILL reached it inside

    def test_two_ranks_inside_train_as_one_with_ssims_wiring(self):
        ddp_experiment(self, "local", "{ntasks: 2}")
        p = self.ssim("run", "experiment.yaml", timeout=240)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        told = read_ranks(self, "rank", 2)
        self.assertEqual([t["RANK"] for t in told], ["0", "1"])
        self.assertEqual({t["WORLD_SIZE"] for t in told}, {"2"})
        self.assertEqual(len({(t["MASTER_ADDR"], t["MASTER_PORT"]) for t in told}), 1)
        self.assertEqual([i["inside"] for i in read_ranks(self, "inside", 2)], [True, True])


    def test_a_torchrun_inside_starts_its_workers_from_ssims_wiring(self):
        torchrun_experiment(self, "local", "{torchrun: 2}")
        p = self.ssim("run", "experiment.yaml", timeout=240)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        told = read_ranks(self, "rank", 2)
        self.assertEqual([(t["RANK"], t["LOCAL_RANK"], t["WORLD_SIZE"]) for t in told], [("0", "0", "2"), ("1", "1", "2")])
        self.assertEqual([i["inside"] for i in read_ranks(self, "inside", 2)], [True, True])
        assert_same_weights(self, told[0]["weights"], single_process_weights())


@unittest.skipUnless(IMAGE and shutil.which("setpriv"), "no test image, or no setpriv (util-linux)")
class CharliecloudUnprivileged(SsimTestCase):
    """As a user without root: ch-run in a user namespace of its own, the image not theirs."""

    def test_an_unprivileged_user_runs_the_database_and_a_producer_inside(self):
        # A first run as root makes the folders the image lacks for ssim's module (the
        # image is root's: a user's run cannot, and says so at validate time).
        self.write("root.yaml", f"experiment: {{name: r}}\nmodels:\n"
                                f"  - {{name: m, exe: /bin/true, container: {{runtime: charliecloud, image: {IMAGE}}}}}\n")
        self.ssim("run", "root.yaml", check=0)
        self.write("producer.py", PRODUCER)
        self.write("trainer.py", TRAINER)
        self.write("experiment.yaml", f"""
experiment: {{name: ct}}
orchestrator: {{port: auto, container: {{runtime: charliecloud, image: {IMAGE}}}}}
models:
  - {{name: producer, exe: python3, args: [producer.py], files: {{copy: [producer.py]}},
     container: {{runtime: charliecloud, image: {IMAGE}}}}}
  - {{name: trainer, exe: /usr/bin/python3, args: [trainer.py], files: {{copy: [trainer.py]}}}}
""")
        for root, dirs, files in os.walk(self.dir):
            for name in dirs + files:
                os.chmod(os.path.join(root, name), 0o777)
        os.chmod(self.dir, 0o777)
        env = dict(self.env, HOME=self.dir)
        env.pop("USER", None)  # ch-run needs one: ssim gives the user's name
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", SSIM, "run",
                            "experiment.yaml"], cwd=self.dir, env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(self.dir, "ct/producer/inside.json")) as f:
            inside = json.load(f)
        self.assertEqual((inside["inside"], inside["user"]), (True, "nobody"))
        self.assertEqual(os.stat(os.path.join(self.dir, "ct/producer/inside.json")).st_uid, 65534)
        with open(os.path.join(self.dir, "ct/trainer/trainer.out")) as f:
            self.assertIn("total 48.0", f.read())

    def test_an_unprivileged_user_s_tasks_inside_share_their_colocated_database(self):
        self.write("root.yaml", f"experiment: {{name: r}}\nmodels:\n"
                                f"  - {{name: m, exe: /bin/true, container: {{runtime: charliecloud, image: {IMAGE}}}}}\n")
        self.ssim("run", "root.yaml", check=0)  # the folders the image lacks, made by root (as above)
        self.write("colo.py", COLOCATED_TASK)
        self.write("experiment.yaml", f"""experiment: {{name: ct}}
models:
  - {{name: colo, exe: python3, args: [colo.py], files: {{copy: [colo.py]}}, run: {{ntasks: 2}}, colocated_db: {{}},
     container: {{runtime: charliecloud, image: {IMAGE}}}}}
""")
        for root, dirs, files in os.walk(self.dir):
            for name in dirs + files:
                os.chmod(os.path.join(root, name), 0o777)
        os.chmod(self.dir, 0o777)
        env = dict(self.env, HOME=self.dir)
        env.pop("USER", None)
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", SSIM, "run",
                            "experiment.yaml"], cwd=self.dir, env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        got = []
        for rank in (0, 1):
            with open(os.path.join(self.dir, f"ct/colo/colo{rank}.json")) as f:
                got.append(json.load(f))
        self.assertEqual(got[0]["ssdb"], got[1]["ssdb"])
        self.assertEqual([g["other"] for g in got], [[1.0] * 4, [0.0] * 4])


@unittest.skipUnless(IMAGE and cluster_up(), "no Slurm cluster (scripts/slurm-cluster.sh up) or no test image")
class CharliecloudOnSlurm(SlurmCase):
    def test_a_two_rank_trainer_inside_across_two_nodes(self):
        self.allocate(2)
        ddp_experiment(self, "slurm", "{nodes: 2, ntasks: 2}")
        p = self.ssim("run", "experiment.yaml", timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        told = read_ranks(self, "rank", 2)
        self.assertEqual([t["RANK"] for t in told], ["0", "1"])
        self.assertEqual([t["LOCAL_RANK"] for t in told], ["0", "0"])  # one on each node
        self.assertEqual(len({(t["MASTER_ADDR"], t["MASTER_PORT"]) for t in told}), 1)
        inside = read_ranks(self, "inside", 2)
        self.assertEqual([i["inside"] for i in inside], [True, True])
        self.assertEqual(sorted(i["host"] for i in inside), sorted(self.nodes))  # two nodes, by name
        p = self.ssim("status", "experiment.yaml", "-o", "name,loss", check=0)
        self.assertRegex(p.stdout, r"train\s+0\.125")

    def test_a_torchrun_inside_on_each_of_two_nodes_makes_one_world(self):
        # One torchrun a node, inside the container, two workers each: four ranks that
        # train as one process would, told where rank 0 is only by ssim's PET_* wiring.
        self.allocate(2)
        torchrun_experiment(self, "slurm", "{nodes: 2, ntasks: 2, torchrun: 2}")
        p = self.ssim("run", "experiment.yaml", timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        told = read_ranks(self, "rank", 4)
        self.assertEqual([(t["RANK"], t["LOCAL_RANK"], t["WORLD_SIZE"]) for t in told],
                         [("0", "0", "4"), ("1", "1", "4"), ("2", "0", "4"), ("3", "1", "4")])
        self.assertEqual(len({(t["MASTER_ADDR"], t["MASTER_PORT"]) for t in told}), 1)
        inside = read_ranks(self, "inside", 4)
        self.assertEqual([i["inside"] for i in inside], [True] * 4)
        self.assertEqual(sorted({i["host"] for i in inside}), sorted(self.nodes))  # both nodes, by name
        assert_same_weights(self, told[0]["weights"], single_process_weights())


class Simulated(SsimTestCase):
    """The runtimes this machine cannot run, through their simulators."""

    def setUp(self):
        super().setUp()
        self.env["PATH"] = FAKES + ":" + self.env["PATH"]
        self.env["SSIM_FAKE_IMAGES"] = os.path.join(self.dir, "images")
        self.env["SSIM_FAKE_CONTAINER_LOG"] = os.path.join(self.dir, "calls.log")
        os.makedirs(self.env["SSIM_FAKE_IMAGES"])
        self.write("images/docker.io_library_python_3.11", "image\nprogram python3\n")
        self.write("py.sif", "#!/usr/bin/env run-singularity\nprogram python3\n")
        self.write("show.py", "import json, os\njson.dump({'cwd': os.getcwd(), 'rank': os.environ.get('RANK'), "
                              "'entity': os.environ.get('SSIM_ENTITY'), 'home': os.environ.get('HOME'), "
                              "'path': os.environ.get('PATH')}, open('seen.json', 'w'))\n")

    def run_in(self, container, exe="python3", check=0):
        self.write("experiment.yaml", f"""
experiment: {{name: sim}}
models:
  - name: m
    exe: {exe}
    args: [show.py]
    files: {{copy: [show.py]}}
    container: {{{container}}}
""")
        return self.ssim("run", "experiment.yaml", timeout=60, check=check)

    def seen(self):
        with open(os.path.join(self.dir, "sim/m/seen.json")) as f:
            return json.load(f)

    def test_each_runtime_runs_the_program_in_its_run_directory_with_ssims_variables(self):
        for runtime, image in (("apptainer", "py.sif"), ("singularity", "./py.sif"),
                               ("podman", "docker.io/library/python:3.11"), ("docker", "docker.io/library/python:3.11")):
            with self.subTest(runtime=runtime):
                shutil.rmtree(os.path.join(self.dir, "sim"), ignore_errors=True)
                self.run_in(f"runtime: {runtime}, image: {image}")
                seen = self.seen()
                self.assertEqual(seen["cwd"], os.path.join(self.dir, "sim/m"))
                self.assertEqual((seen["entity"], seen["rank"]), ("m", "0"))
                if runtime in ("podman", "docker"):  # only what ssim names passes in: the image's PATH
                    self.assertEqual(seen["path"], "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")

    def test_a_runtime_that_setup_lines_bring_is_not_required_before(self):
        # A site's `module load apptainer`: not on ssim's PATH, on the step's after its setup.
        self.env["PATH"] = self.env["PATH"].replace(FAKES + ":", "")
        self.write("experiment.yaml", f"""
experiment: {{name: sim}}
models:
  - name: m
    exe: python3
    args: [show.py]
    files: {{copy: [show.py]}}
    setup: ["export PATH={FAKES}:$PATH"]
    container: {{runtime: apptainer, image: py.sif}}
""")
        self.ssim("run", "experiment.yaml", timeout=60, check=0)
        self.assertEqual(self.seen()["cwd"], os.path.join(self.dir, "sim/m"))
        self.write("experiment.yaml", "experiment: {name: sim}\nmodels:\n"
                                      "  - {name: m, exe: python3, container: {runtime: apptainer, image: py.sif}}\n")
        p = self.ssim("validate", "experiment.yaml", check=2)
        self.assertIn("experiment.yaml:3:40: models[0].container.runtime: no apptainer on the PATH", p.stderr)

    def test_a_container_that_cannot_start_fails_with_the_runtimes_own_words(self):
        cases = [("runtime: apptainer, image: py.sif", "simulate",
                  'FATAL:   "simulate": executable file not found in $PATH'),
                 ("runtime: podman, image: docker.io/library/python:3.11", "simulate",
                  "executable file `simulate` not found in $PATH"),
                 ("runtime: podman, image: nosuch/image", "python3", "Error: initializing source docker://nosuch/image"),
                 ("runtime: apptainer, image: py.sif, bind: [/nonexistent/data]", "python3",
                  "mount hook function failure: mount /nonexistent/data")]
        for container, exe, words in cases:
            with self.subTest(container=container):
                shutil.rmtree(os.path.join(self.dir, "sim"), ignore_errors=True)
                p = self.run_in(container, exe=exe, check=1)
                self.assertIn(words, p.stdout + p.stderr)
                self.assertEqual(self.status()[1]["m"]["status"], "failed")
                self.assertIn(words[:40], self.status()[1]["m"]["reason"])

    def test_a_podman_container_whose_client_was_killed_is_ended_too(self):
        # Podman's container lives under conmon: SIGKILL to `podman run` leaves it running
        # (the simulator's program leaves the client's session, as conmon's does); ssim ends
        # what its job started that outlived the job, found by its variables.
        self.write("experiment.yaml", """
experiment: {name: sim}
models:
  - name: m
    exe: python3
    args: [-c, "import time; open('started', 'w').close(); time.sleep(600)"]
    container: {runtime: podman, image: docker.io/library/python:3.11}
""")
        self.ssim("run", "--detach", "experiment.yaml", check=0)
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "sim/m/started")), timeout=30, what="started")
        exp_id = self.manifest("sim")["id"]
        clients = [pid for pid in processes_with_env("SSIM_EXPERIMENT_ID", exp_id) if is_fake_runtime(pid)]
        self.assertEqual(len(clients), 1)
        os.kill(clients[0], signal.SIGKILL)
        wait_for(lambda: self.status()[1]["m"]["status"] == "failed", what="the client's end seen")
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=30, what="nothing left")


def is_fake_runtime(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"fake-containers/podman" in f.read()
    except OSError:
        return False


if __name__ == "__main__":
    unittest.main()
