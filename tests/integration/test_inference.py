"""Online inference: models and scripts stored in the database and run by the inference
service ssim starts beside each shard (docs/inference.md), from Python, C, C++ and
Fortran, on one shard and on a 3-shard cluster; errors included (unknown model, wrong
input shape, a model that raises, no GPU, the service killed mid-call)."""
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

from ssimtest import SSIM, SsimTestCase, free_port, kill_processes_under, processes_with_env, wait_for

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
sys.path.insert(0, os.environ.get("SSIM_PYTHON_DIR", os.path.join(ROOT, "build/python")))
import ssim  # noqa: E402

BUILD_TESTS = os.environ.get("SSIM_BUILD_TESTS", os.path.join(ROOT, "build/tests"))
CHECKS = {lang: os.path.join(BUILD_TESTS, f"clients/infer_check_{lang}") for lang in ("c", "cpp", "fortran")}

try:
    import numpy as np
    import torch
except ImportError:  # pragma: no cover - Debian's python3-torch is a test dependency
    torch = None


def read_json(path):
    with open(path) as f:
        return json.load(f)


def mlp(seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
    return torch.jit.script(model.eval())


def saved(module):
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    return buffer.getvalue()


@unittest.skipIf(torch is None, "needs python3-torch")
class InferenceOn:
    SHARDS = 1

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="ssim-infer-")
        cls.saved_state_home = os.environ.get("SSIM_STATE_HOME")
        os.environ["SSIM_STATE_HOME"] = os.path.join(cls.dir, "state")
        ssim.set_binary(SSIM)
        try:
            cls.exp = ssim.Experiment("infer", path=os.path.join(cls.dir, "infer"), launcher="local")
            cls.db = cls.exp.create_database(port=free_port(cls.SHARDS), shards=cls.SHARDS, inference=True)
            cls.exp.start(cls.db)
            cls.client = cls.exp.client()
            cls.env = dict(os.environ, SSDB=cls.client.db_addresses()[0],
                           SSDB_PASSWORD=cls.password())
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def password(cls):
        with open(os.path.join(cls.exp.path, ".ssim/db_password")) as f:
            return f.read().strip()

    @classmethod
    def tearDownClass(cls):
        try:
            if getattr(cls, "exp", None) is not None:
                cls.exp.stop()
                doc = read_json(os.path.join(cls.exp.path, ".ssim/manifest.json"))
                leftovers = processes_with_env("SSIM_EXPERIMENT_ID", doc["id"])
                assert leftovers == [], f"processes left after stop: {leftovers}"
        finally:
            kill_processes_under(cls.dir)
            shutil.rmtree(cls.dir, ignore_errors=True)
            if cls.saved_state_home is None:
                os.environ.pop("SSIM_STATE_HOME", None)
            else:
                os.environ["SSIM_STATE_HOME"] = cls.saved_state_home

    def shard_dirs(self):
        base = os.path.join(self.exp.path, "orchestrator")
        if self.SHARDS == 1:
            return [base]
        return [os.path.join(base, f"orchestrator_{i}") for i in range(self.SHARDS)]

    def stats(self):
        """Every shard's inference-stats.json, merged by model (calls and batches summed)."""
        merged = {}
        for d in self.shard_dirs():
            try:
                models = read_json(os.path.join(d, "inference-stats.json"))["models"]
            except (OSError, ValueError):
                continue
            for name, m in models.items():
                total = merged.setdefault(name, {"calls": 0, "errors": 0, "batches": 0, "max_batch": 0})
                for k in ("calls", "errors", "batches"):
                    total[k] += m[k]
                total["max_batch"] = max(total["max_batch"], m["max_batch"])
        return merged

    # ---- Python ----------------------------------------------------------------------

    def test_a_model_runs_where_its_input_is_and_matches_torch_in_process(self):
        model = mlp()
        x = np.random.default_rng(1).standard_normal((5, 8)).astype(np.float32)
        expected = model(torch.from_numpy(x)).detach().numpy()
        self.client.set_model("mlp", model)  # a ScriptModule: saved by the client
        self.assertTrue(self.client.model_exists("mlp"))
        self.assertTrue(self.client.poll_model("mlp", 10, 2))
        self.assertEqual(self.client.get_model("mlp"), saved(model))
        for i in range(6):  # keys hashing to every shard of a cluster
            self.client.put_tensor(f"x{i}", x)
            self.client.run_model("mlp", inputs=[f"x{i}"], outputs=[f"y{i}"])
            np.testing.assert_allclose(self.client.get_tensor(f"y{i}"), expected, rtol=1e-5, atol=1e-6)
        # Bytes work too, and a new version replaces the old on every service.
        other = mlp(seed=7)
        self.client.set_model("mlp", saved(other), "TORCH", "CPU")
        for i in range(6):
            self.client.run_model("mlp", [f"x{i}"], [f"y{i}"])
            np.testing.assert_allclose(self.client.get_tensor(f"y{i}"),
                                       other(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
        self.client.delete_model("mlp")
        self.assertFalse(self.client.model_exists("mlp"))
        with self.assertRaisesRegex(ssim.InferenceError, 'model or script "mlp" is not stored'):
            self.client.run_model("mlp", ["x0"], ["y0"])
        with self.assertRaises(ssim.KeyNotFound):
            self.client.delete_model("mlp")

    def test_a_model_from_a_file_with_several_inputs_and_outputs(self):
        class TwoInTwoOut(torch.nn.Module):
            def forward(self, a, b):
                return a + b, a * b
        path = os.path.join(self.dir, "two.pt")
        torch.jit.save(torch.jit.script(TwoInTwoOut()), path)
        self.client.set_model_from_file("two", path)
        a, b = np.arange(6.0).reshape(2, 3), np.full((2, 3), 2.0)
        self.client.put_tensor("a", a)
        self.client.put_tensor("b", b)
        self.client.run_model("two", ["a", "b"], ["sum", "product"])
        np.testing.assert_array_equal(self.client.get_tensor("sum"), a + b)
        np.testing.assert_array_equal(self.client.get_tensor("product"), a * b)
        with self.assertRaisesRegex(ssim.InferenceError, 'returned 2 tensors, and 1 output name was given'):
            self.client.run_model("two", ["a", "b"], ["sum"])

    def test_scripts_run_functions_by_name(self):
        self.client.set_script("ops", "def scale(a, b):\n    return a * 3 + b\n\n"
                                      "def total(ts: List[torch.Tensor]):\n    return ts[0] + ts[1] + ts[2]\n")
        ones = np.ones((4,), dtype=np.float32)
        self.client.put_tensor("o", ones)
        self.client.run_script("ops", "scale", ["o", "o"], ["s"])
        np.testing.assert_array_equal(self.client.get_tensor("s"), ones * 4)
        self.client.run_script("ops", "total", ["o", "o", "o"], ["t"])  # one List[Tensor] argument
        np.testing.assert_array_equal(self.client.get_tensor("t"), ones * 3)
        with self.assertRaisesRegex(ssim.InferenceError, 'script "ops" has no function "nope"'):
            self.client.run_script("ops", "nope", ["o"], ["t"])
        with self.assertRaisesRegex(ssim.InferenceError, '"ops" is a script: use run_script'):
            self.client.run_model("ops", ["o"], ["t"])
        self.assertIn("def scale", self.client.get_script("ops"))

        def double(x):
            return x * 2
        self.client.set_function("doubler", double)
        self.client.run_script("doubler", "double", ["o"], ["d"])
        np.testing.assert_array_equal(self.client.get_tensor("d"), ones * 2)
        path = os.path.join(self.dir, "neg.py")
        with open(path, "w") as f:
            f.write("def negate(x):\n    return -x\n")
        self.client.set_script_from_file("neg", path)
        self.client.run_script("neg", "negate", ["o"], ["n"])
        np.testing.assert_array_equal(self.client.get_tensor("n"), -ones)
        for name in ("ops", "doubler", "neg"):
            self.client.delete_script(name)

    def test_errors_name_their_cause_and_the_service_keeps_serving(self):
        self.client.set_model("err_mlp", mlp())
        self.client.put_tensor("wrong", np.ones((3, 5), dtype=np.float32))
        with self.assertRaisesRegex(ssim.InferenceError, r"shapes cannot be multiplied \(3x5 and 8x16\)"):
            self.client.run_model("err_mlp", ["wrong"], ["out"])
        with self.assertRaisesRegex(ssim.InferenceError, 'input tensor "missing" is not in the database'):
            self.client.run_model("err_mlp", ["missing"], ["out"])
        class Raiser(torch.nn.Module):
            def forward(self, x):
                if bool(x.sum() > 0):
                    raise ValueError("negative values only")
                return x
        self.client.set_model("raiser", torch.jit.script(Raiser()))
        with self.assertRaisesRegex(ssim.InferenceError, "negative values only"):
            self.client.run_model("raiser", ["wrong"], ["out"])
        # A model that asks for more memory than there is: an error, and the service lives on.
        self.client.set_script("greedy", "def grab(x):\n    return torch.zeros(1 << 42) + x.sum()\n")
        with self.assertRaisesRegex(ssim.InferenceError, '"greedy" ran out of memory in the inference service'):
            self.client.run_script("greedy", "grab", ["wrong"], ["out"])
        self.client.set_script("broken", "def f(x):\n    return x +\n")
        with self.assertRaisesRegex(ssim.InferenceError, '"broken" does not load as TorchScript'):
            self.client.run_script("broken", "f", ["wrong"], ["out"])
        self.client.set_model("not_torchscript", b"these bytes are no model")
        with self.assertRaisesRegex(ssim.InferenceError, '"not_torchscript" does not load as TorchScript'):
            self.client.run_model("not_torchscript", ["wrong"], ["out"])
        # A model stored for a GPU fails clearly where there is none: never silently on the CPU.
        if not torch.cuda.is_available():
            self.client.set_model("gpu_mlp", mlp(), device="GPU:0")
            self.client.put_tensor("right", np.ones((3, 8), dtype=np.float32))
            with self.assertRaisesRegex(ssim.InferenceError, r'stored for GPU:0, but the node that serves it has 0 GPUs'):
                self.client.run_model("gpu_mlp", ["right"], ["out"])
        with self.assertRaisesRegex(ssim.ClientError, 'device "TPU" is not CPU, GPU or GPU:n'):
            self.client.set_model("tpu", mlp(), device="TPU")
        with self.assertRaisesRegex(ssim.ClientError, "TorchScript models only"):
            self.client.set_model("tf", b"x", backend="TF")
        # After all that, the service still answers.
        self.client.put_tensor("fine", np.ones((2, 8), dtype=np.float32))
        self.client.run_model("err_mlp", ["fine"], ["out"])
        self.assertEqual(self.client.get_tensor("out").shape, (2, 2))
        stats = wait_for(lambda: self.stats().get("err_mlp", {}).get("calls") == 3 and self.stats()["err_mlp"],
                         what="the model's statistics")
        self.assertEqual(stats["errors"], 2, stats)  # the wrong shape and the missing input

    def test_calls_from_many_callers_are_batched(self):
        model = mlp(seed=3)
        # At most 8 rows a batch; wait up to 5 s for 8 rows.
        self.client.set_model("batched", model, batch_size=8, min_batch_size=8, min_batch_timeout=5000)
        rows = np.random.default_rng(2).standard_normal((8, 1, 8)).astype(np.float32)
        key = "{same}"  # every caller's input on one shard: one service batches them all
        results, errors = {}, []

        def call(i):
            try:
                c = self.exp.client()
                c.put_tensor(f"in{i}{key}", rows[i])
                c.run_model("batched", [f"in{i}{key}"], [f"out{i}{key}"])
                results[i] = c.get_tensor(f"out{i}{key}")
            except Exception as e:  # reported below
                errors.append(e)
        threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])
        for i in range(8):
            np.testing.assert_allclose(results[i], model(torch.from_numpy(rows[i])).detach().numpy(),
                                       rtol=1e-5, atol=1e-6)
        stats = wait_for(lambda: self.stats().get("batched", {}).get("calls") == 8 and self.stats()["batched"],
                         what="the batched model's statistics")
        self.assertEqual(stats["max_batch"], 8, stats)  # all eight in one batch
        self.assertEqual(stats["batches"], 1, stats)

    @unittest.skipUnless(torch is not None and torch.cuda.is_available(),
                         "no GPU here: the GPU path (device GPU runs on the node's GPU) is checked where libtorch sees one")
    def test_a_model_stored_for_a_gpu_runs_there(self):
        model = mlp()
        self.client.set_model("on_gpu", model, device="GPU")
        x = np.ones((4, 8), dtype=np.float32)
        self.client.put_tensor("gpu_x", x)
        self.client.run_model("on_gpu", ["gpu_x"], ["gpu_y"])
        np.testing.assert_allclose(self.client.get_tensor("gpu_y"), model(torch.from_numpy(x)).detach().numpy(),
                                   rtol=1e-4, atol=1e-5)

    # ---- C, C++, Fortran -------------------------------------------------------------

    def check_language(self, lang):
        model = mlp(seed=11)
        path = os.path.join(self.dir, f"mlp_{lang}.pt")
        torch.jit.save(model, path)
        p = subprocess.run([CHECKS[lang], path], env=self.env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, f"{lang}:\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        x = np.fromfunction(lambda i, j: 0.1 * (i + j), (4, 8)).astype(np.float32)
        expected = model(torch.from_numpy(x)).detach().numpy().reshape(-1)
        got = np.array([float(v) for v in p.stdout.split()])
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)

    def test_c(self):
        self.check_language("c")

    def test_cpp(self):
        self.check_language("cpp")

    def test_fortran(self):
        self.check_language("fortran")

    # ---- what ssim shows -------------------------------------------------------------

    def test_status_shows_each_service_and_its_models(self):
        self.client.set_model("shown", mlp())
        self.client.put_tensor("shown_x", np.ones((1, 8), dtype=np.float32))
        self.client.run_model("shown", ["shown_x"], ["shown_y"])
        p = subprocess.run([SSIM, "status", self.exp.path, "--json"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        services = doc["inference"]
        self.assertEqual(len(services), self.SHARDS)
        for s in services:
            self.assertEqual(s["status"], "running")
            self.assertTrue(os.path.exists(f"/proc/{s['pid']}"))
        wait_for(lambda: "shown" in self.stats(), what="statistics of the model")
        doc = json.loads(subprocess.run([SSIM, "status", self.exp.path, "--json"], capture_output=True,
                                        text=True, timeout=30).stdout)
        calls = sum(s["models"].get("shown", {}).get("calls", 0) for s in doc["inference"])
        self.assertEqual(calls, 1)
        table = subprocess.run([SSIM, "status", self.exp.path], capture_output=True, text=True, timeout=30).stdout
        self.assertIn("INFERENCE", table)
        self.assertIn("shown", table)
        report = os.path.join(self.dir, f"report{self.SHARDS}.html")
        p = subprocess.run([SSIM, "report", self.exp.path, "-o", report], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(report) as f:
            html = f.read()
        section = html[html.index('<section id="inference">'):]
        self.assertIn("<td>shown</td>", section[:section.index("</section>")])


class OneShard(InferenceOn, unittest.TestCase):
    SHARDS = 1

    def test_a_service_killed_mid_call_fails_the_call_and_comes_back(self):
        # A script that computes for seconds: the call is in flight when the service dies.
        self.client.set_script("slow", "def spin(x):\n    y = x\n    for i in range(100000):\n"
                                       "        y = torch.tanh(y @ x)\n    return y\n")
        self.client.put_tensor("square", np.full((64, 64), 0.01, dtype=np.float32))
        info_file = os.path.join(self.shard_dirs()[0], "inference.json")
        pid = read_json(info_file)["pid"]
        outcome = {}

        def call():
            try:
                self.exp.client().run_script("slow", "spin", ["square"], ["spun"])
                outcome["result"] = "returned"
            except Exception as e:
                outcome["result"] = e
        def cpu_ticks():
            with open(f"/proc/{pid}/stat") as f:
                return int(f.read().rsplit(")", 1)[1].split()[11])
        before = cpu_ticks()
        t = threading.Thread(target=call)
        t.start()
        wait_for(lambda: cpu_ticks() > before + 20, what="the service computing")
        os.kill(pid, signal.SIGKILL)
        t.join(20)
        self.assertFalse(t.is_alive(), "run_script hung after the service died")
        self.assertIsInstance(outcome["result"], ssim.ConnectionError)
        self.assertIn("may have died", str(outcome["result"]))
        # The database step starts it again; the next call finds it.
        wait_for(lambda: os.path.exists(info_file) and read_json(info_file)["pid"] != pid,
                 timeout=30, what="the service started again")
        self.client.set_model("after", mlp())
        self.client.put_tensor("after_x", np.ones((1, 8), dtype=np.float32))
        self.client.run_model("after", ["after_x"], ["after_y"])
        with open(os.path.join(self.shard_dirs()[0], "inference.log")) as f:
            self.assertIn("starting it again", f.read())


class ThreeShards(InferenceOn, unittest.TestCase):
    SHARDS = 3


@unittest.skipIf(torch is None, "needs python3-torch")
class Colocated(SsimTestCase):
    """Each node's tasks infer on that node's own database (colocated_db: {inference: true})."""

    def test_two_tasks_share_their_node_s_service(self):
        self.write("rank.py", """
import os, sys, io
import numpy as np, torch, ssim
rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("SLURM_PROCID", "0")))
c = ssim.Client()
assert os.environ["SSDB"].startswith("unix:"), os.environ["SSDB"]
if rank == 0:
    torch.manual_seed(0)
    m = torch.jit.script(torch.nn.Linear(4, 1))
    c.set_model("local", m)
    c.put_tensor("expected", m(torch.ones(2, 4)).detach().numpy())
c.poll_model("local", 20, 500)
c.put_tensor(f"x{rank}", np.ones((2, 4), dtype=np.float32))
c.run_model("local", [f"x{rank}"], [f"y{rank}"])
np.testing.assert_allclose(c.get_tensor(f"y{rank}"), c.get_tensor("expected"), rtol=1e-6)
print(f"rank {rank} inferred on its node")
""")
        self.write("experiment.yaml", f"""
experiment: {{name: colo, path: colo}}
models:
  - name: sim
    exe: {sys.executable}
    args: [{os.path.join(self.dir, "rank.py")}]
    run: {{ntasks: 2, mpi: mpirun}}
    colocated_db: {{inference: true}}
""")
        self.ssim("run", "experiment.yaml", timeout=120, check=0)
        out = self.ssim("logs", "colo", "sim", check=0).stdout
        self.assertIn("rank 0 inferred on its node", out)
        self.assertIn("rank 1 inferred on its node", out)
        doc = read_json(os.path.join(self.dir, "colo/.ssim/manifest.json"))
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", doc["id"]), [])  # the service went too


if __name__ == "__main__":
    unittest.main()
