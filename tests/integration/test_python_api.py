"""The Python experiment API (python/ssim/experiment.py) on real processes: the notebook
example executed headless by a real Jupyter kernel, a kernel killed mid-run and the
experiment picked up from another process, YAML -> Python -> YAML for every example,
and validation errors as exceptions."""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap

from ssimtest import SSIM, SsimTestCase, processes_with_env, wait_for

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
EXAMPLES = os.path.join(ROOT, "examples")

sys.path.insert(0, os.environ.get("SSIM_PYTHON_DIR", os.path.join(ROOT, "build/python")))
import ssim  # noqa: E402


class PythonApi(SsimTestCase):
    def setUp(self):
        super().setUp()
        ssim.set_binary(SSIM)
        previous = os.environ.get("SSIM_STATE_HOME")
        os.environ["SSIM_STATE_HOME"] = self.env["SSIM_STATE_HOME"]  # the API's ssim calls
        self.addCleanup(lambda: os.environ.pop("SSIM_STATE_HOME") if previous is None
                        else os.environ.update(SSIM_STATE_HOME=previous))
        self.cwd = os.getcwd()
        os.chdir(self.dir)
        self.addCleanup(os.chdir, self.cwd)

    def assert_nothing_left(self, path):
        doc = json.loads(self.ssim("status", path, "--json", check=None).stdout)
        self.assertIsNone(doc["runner"])
        self.assertTrue(all(e["status"] in ("completed", "failed", "cancelled") for e in doc["entities"]),
                        [(e["name"], e["status"]) for e in doc["entities"]])
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", doc["id"]), [])

    def test_the_notebook_example_runs_headless_and_leaves_nothing_running(self):
        import nbclient
        import nbformat
        for folder in ("notebook", "streaming"):
            shutil.copytree(os.path.join(EXAMPLES, folder), os.path.join(self.dir, folder))
        here = os.path.join(self.dir, "notebook")
        nb = nbformat.read(os.path.join(here, "online_training.ipynb"), as_version=4)
        env_before = dict(os.environ)
        os.environ["SSIM_BIN"] = SSIM  # the kernel finds the ssim under test
        os.environ["PYTHONPATH"] = os.path.dirname(os.path.dirname(ssim.__file__))
        try:
            nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                    resources={"metadata": {"path": here}}).execute()
        finally:
            os.environ.clear()
            os.environ.update(env_before)
        path = os.path.join(here, "runs/online-training")
        with open(os.path.join(path, "trainer/results.json")) as f:
            result = json.load(f)
        self.assertGreater(result["final_accuracy"], 0.8)  # chance is 0.5
        outputs = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
        self.assertIn("accuracy", outputs)
        # Jupyter shows the experiment as a table, and the blocking start a live line.
        html = {c.id: "".join(o.get("data", {}).get("text/html", "") for o in c.get("outputs", []))
                for c in nb.cells}
        self.assertIn("<table>", html["experiment"])
        self.assertIn("orchestrator", html["experiment"])
        self.assertRegex(html["trainer"], r"\[online-training +[0-9.]+ s\] .*completed")
        # Started in three calls, one experiment: the producers were running when the
        # trainer joined, and the database was stopped last.
        doc = json.loads(self.ssim("status", path, "--json", check=None).stdout)
        names = [e["name"] for e in doc["entities"]]
        self.assertEqual(sorted(names), ["orchestrator", "producers_0", "producers_1", "trainer"])
        self.assert_nothing_left(path)

    def test_a_killed_kernel_loses_nothing_and_attach_stops_the_experiment(self):
        script = textwrap.dedent(f"""
            import sys, ssim
            ssim.set_binary({SSIM!r})
            exp = ssim.Experiment("k", launcher="local", oversubscribe=True)
            db = exp.create_database(port="auto")
            exp.start(db)
            sim = exp.create_model("sim", exe="/bin/sleep", args=["300"])
            exp.start(sim, block=False)
            print(exp.path, flush=True)
            sys.stdin.read()  # a kernel, busy until killed
        """)
        kernel = subprocess.Popen([sys.executable, "-c", script], cwd=self.dir, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  env=dict(self.env, PYTHONPATH=os.path.dirname(os.path.dirname(ssim.__file__))))
        self.popens.append(kernel)
        path = kernel.stdout.readline().strip()
        self.assertTrue(path.endswith("/k"), path)
        kernel.send_signal(signal.SIGKILL)
        kernel.wait()
        exp = ssim.Experiment.attach(path)
        self.assertEqual(exp.poll(), {"orchestrator": "running", "sim": "running"})
        self.assertEqual(list(exp._entities), ["sim"])
        self.assertEqual(exp.client().db_addresses().__len__(), 1)
        # A shell sees the same experiment, tracked by the run the dead kernel started.
        doc = json.loads(self.ssim("status", path, "--json", check=None).stdout)
        self.assertEqual(doc["runner"]["role"], "monitor")
        # More can be started from the new process, then everything stopped.
        late = exp.create_model("late", exe="/bin/sh", args=["-c", "echo late"])
        self.assertEqual(exp.start(late, timeout=30), {"late": "completed"})
        self.assertEqual(exp.logs("late"), "late\n")
        exp.stop()
        self.assertEqual(exp.poll()["sim"], "cancelled")
        self.assert_nothing_left(path)

    def test_every_example_goes_yaml_to_python_to_yaml_unchanged(self):
        shutil.copytree(EXAMPLES, os.path.join(self.dir, "examples"))
        files = sorted(glob.glob(os.path.join(self.dir, "examples/*/experiment*.yaml")))
        self.assertGreaterEqual(len(files), 8)
        for original in files:
            with self.subTest(file=os.path.relpath(original, self.dir)):
                exp = ssim.Experiment.from_yaml(original)
                again = os.path.join(os.path.dirname(original), "again.yaml")
                exp.to_yaml(again)
                plans = []
                for f in (original, again):
                    proc = self.ssim("run", f, "--dry-run", "--json", "--launcher", "local", check=0)
                    plan = json.loads(proc.stdout)
                    plan.pop("file")
                    plans.append(plan)
                self.assertEqual(plans[0], plans[1])
                # And once more through Python: the same document.
                self.assertEqual(ssim.Experiment.from_yaml(again).to_dict(), exp.to_dict())

    def test_container_paths_are_the_scripts_wherever_the_file_goes(self):
        exp = ssim.Experiment("c", path=os.path.join(self.dir, "runs/c"),
                              container={"runtime": "charliecloud", "image": "./img"})
        exp.create_model("m", "python3", container={"image": "./i.sif", "bind": ["data:/in:ro", "/x"]})
        exp.create_database(container={"runtime": "podman", "image": "docker.io/library/redis:7"})
        doc = exp.to_dict()
        self.assertEqual(doc["experiment"]["container"]["image"], os.path.join(self.dir, "img"))
        self.assertEqual(doc["models"][0]["container"],
                         {"image": os.path.join(self.dir, "i.sif"), "bind": [os.path.join(self.dir, "data:/in:ro"), "/x"]})
        self.assertEqual(doc["orchestrator"]["container"]["image"], "docker.io/library/redis:7")  # a name

    def test_a_bad_experiment_raises_with_the_field_and_writes_nothing(self):
        exp = ssim.Experiment("bad", launcher="local")
        exp.create_model("m", exe="/bin/true", run={"ntasks": 0})
        with self.assertRaises(ssim.ExperimentError) as caught:
            exp.start()
        message = str(caught.exception)
        self.assertRegex(message, r"^/.*bad\.yaml:\d+:\d+: models\[0\]\.run\.ntasks: ")
        self.assertEqual(caught.exception.exit_code, 2)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad")))
        with self.assertRaises(ssim.ExperimentError) as unknown:
            ssim.Experiment.from_yaml(self.write("x.yaml", "experiment: {name: x}\nmodels:\n  - {name: m, exe: /bin/true, ags: []}\n"))
        self.assertIn("x.yaml:3:", str(unknown.exception))
        self.assertIn("did you mean", str(unknown.exception))

    def test_a_refusal_leaves_nothing_on_disk_and_names_the_python_argument(self):
        home = os.path.join(self.dir, "home")
        os.makedirs(home)
        old_home = os.environ.get("HOME")
        os.environ["HOME"] = home
        self.addCleanup(lambda: os.environ.update(HOME=old_home) if old_home else os.environ.pop("HOME"))
        os.makedirs(os.path.join(self.dir, "work"))
        os.chdir(os.path.join(self.dir, "work"))
        before_root = set(os.listdir("/"))
        for name, path, field in (("x", "/", "experiment.path"), ("x", "~", "experiment.path"),
                                  ("", None, "experiment.name"), ("x", "deeper/still/x", "models[0].run.ntasks")):
            with self.subTest(name=name, path=path):
                exp = ssim.Experiment(name, path=path)
                exp.create_model("m", exe="/bin/true", run={"ntasks": 0 if path == "deeper/still/x" else 1})
                for call in (exp.validate, exp.start):
                    with self.assertRaises(ssim.ExperimentError) as caught:
                        call()
                    self.assertIn(field, str(caught.exception))
                    self.assertNotIn(".check", str(caught.exception))  # named as the file it would be
        self.assertEqual(set(os.listdir("/")), before_root)
        self.assertEqual(sorted(set(os.listdir(self.dir)) - {"state"}), ["home", "work"])
        self.assertEqual(os.listdir(home), [])
        self.assertEqual(os.listdir("."), [])
        # A start refused by the run (an earlier run of it is there) leaves the earlier
        # file as it was, and speaks Python.
        ok = ssim.Experiment("mine")
        ok.create_model("m", exe="/bin/true")
        ok.start()
        ok.stop()
        with open("mine.yaml") as f:
            earlier = f.read()
        again = ssim.Experiment("mine")
        again.create_database(port=6999)
        again.create_model("m", exe="/bin/true")
        with self.assertRaises(ssim.SsimError) as refused:
            again.start()
        with open("mine.yaml") as f:
            self.assertEqual(f.read(), earlier)
        self.assertIn("overwrite=True", str(refused.exception))
        self.assertNotIn("--overwrite", str(refused.exception))
        # Entities by name; an unknown name is bad input, not an AttributeError.
        named = ssim.Experiment("named")
        named.create_model("m", exe="/bin/true")
        with self.assertRaises(ssim.ExperimentError) as unknown:
            named.start("nope")
        self.assertIn("'nope'", str(unknown.exception))
        self.assertEqual(named.start("m"), {"m": "completed"})
        named.stop()

    def test_status_reads_in_order_with_times(self):
        exp = ssim.Experiment("order")
        exp.create_model("m", exe="/bin/true")
        exp.start()
        rows = exp.status(as_frame=False)
        self.assertEqual(list(rows[0])[:4], ["name", "type", "ensemble", "status"])
        frame = exp.status(as_frame=True)
        self.assertEqual(list(frame.columns)[:4], ["name", "type", "ensemble", "status"])
        self.assertEqual(str(frame["start"].dtype), "datetime64[ns, UTC]")
        self.assertGreater(frame["end"][0].year, 2000)
        exp.stop()

    def test_a_client_of_an_ended_experiment_says_why_and_what_to_do(self):
        exp = ssim.Experiment("ended", launcher="local")
        exp.create_database(port="auto")
        exp.create_model("m", exe="/bin/true")
        self.assertEqual(exp.start(timeout=60), {"m": "completed"})
        exp.stop()
        report = exp.report(os.path.join(self.dir, "ended.html"))
        with open(report) as f:
            self.assertIn("ended", f.read())
        with self.assertRaises(ssim.ConnectionError) as caught:
            ssim.Client.from_experiment(exp.file)  # the YAML file works as every verb takes it
        self.assertIn("persist: true", str(caught.exception))
        self.assertIn("--resume", str(caught.exception))


class TrainingLoader(SsimTestCase):
    """ssim.ml.StreamingDataset under DataLoader workers (fork and spawn) and two ranks."""

    def setUp(self):
        super().setUp()
        ssim.set_binary(SSIM)
        self.saved_env = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(self.saved_env)))
        os.environ["SSIM_STATE_HOME"] = self.env["SSIM_STATE_HOME"]
        self.exp = ssim.Experiment("loader", path=os.path.join(self.dir, "loader"), launcher="local")
        self.exp.create_database(port="auto")
        self.exp.start()
        self.addCleanup(self.exp.stop)
        env = json.loads(self.ssim("env", self.exp.path, "--json", check=0).stdout)
        os.environ["SSDB"] = env["SSDB"]
        os.environ["SSDB_PASSWORD"] = env.get("SSDB_PASSWORD", "")
        from ssim.ml import Uploader
        import numpy as np
        for producer, count in (("p0", 7), ("p1", 4)):  # 11 batches: 5 per rank, one left over
            os.environ["SSKEYOUT"] = producer
            up = Uploader(client=ssim.Client())
            up.publish_info()
            for i in range(count):
                ident = int(producer[1]) * 1000 + i
                up.put_batch(np.full((4, 3), ident, dtype=np.float32), np.zeros(4, dtype=np.int64))
        del os.environ["SSKEYOUT"]
        os.environ["SSKEYIN"] = "p0,p1"

    def epochs(self, method, rank, epochs=2):
        import torch
        from ssim.ml import StreamingDataset
        data = StreamingDataset(rank=rank, world_size=2, seed=1)
        loader = torch.utils.data.DataLoader(data, batch_size=None, num_workers=2, multiprocessing_context=method)
        return [[int(x[0, 0]) for x, _ in loader] for _ in range(epochs)]

    def test_workers_under_fork_and_spawn_share_a_ranks_batches_and_ranks_get_equal_counts(self):
        import pickle
        from ssim.ml import StreamingDataset
        pickle.loads(pickle.dumps(StreamingDataset(rank=0, world_size=2)))
        for method in ("fork", "spawn"):
            with self.subTest(method=method):
                os.environ["SSIM_ENTITY"] = "trainer_" + method  # its own epoch counters
                rank0 = self.epochs(method, 0)
                rank1 = self.epochs(method, 1)
                for epoch in range(2):
                    a, b = rank0[epoch], rank1[epoch]
                    self.assertEqual((len(a), len(b)), (5, 5))  # floor(11 / 2) each
                    self.assertEqual(len(set(a)), 5)  # the two workers took different batches
                    self.assertEqual(len(set(a) | set(b)), 10)  # and the ranks too
