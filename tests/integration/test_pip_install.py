"""`pip install <ssim source>/python` into a fresh virtual environment, offline: the
module, the ssim command and its supervisor are built for that interpreter, the
experiment API drives a run from it, and `exe: python3` entities get that interpreter."""
import glob
import json
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest

from ssimtest import SsimTestCase

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
TORCH_CMAKE = "/usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake"  # libtorch-dev


def interpreters():
    """Debian's Python, and one other CPython (pyenv) when the machine has one."""
    found = ["/usr/bin/python3"]
    for pattern in ("/root/.pyenv/versions/3.9*/bin/python3", "/root/.pyenv/versions/3.12*/bin/python3"):
        others = sorted(glob.glob(pattern))
        if others:
            found.append(others[-1])
            break
    return found


class PipInstall(SsimTestCase):
    def install(self, python):
        venv = tempfile.mkdtemp(prefix="ssim-venv-")
        self.addCleanup(shutil.rmtree, venv, ignore_errors=True)
        subprocess.run([python, "-m", "venv", venv], check=True, capture_output=True)
        # No index: everything must come from the machine.
        env = dict(self.env, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("PYTHONPATH", None)
        proc = subprocess.run([f"{venv}/bin/python", "-m", "pip", "install", os.path.join(ROOT, "python")],
                              capture_output=True, text=True, env=env, timeout=900)
        self.assertEqual(proc.returncode, 0, proc.stdout[-3000:] + proc.stderr[-3000:])
        return venv, env

    def test_pip_install_into_a_venv_and_run_an_experiment_from_it(self):
        for python in interpreters():
            with self.subTest(python=python):
                venv, env = self.install(python)
                version = subprocess.run([f"{venv}/bin/ssim", "--version"], capture_output=True, text=True, env=env)
                self.assertEqual(version.returncode, 0, version.stderr)
                script = textwrap.dedent("""
                    import json, sys, ssim
                    exp = ssim.Experiment("fromvenv", launcher="local")
                    exp.create_database(port="auto")
                    who = exp.create_model("who", exe="python3",
                                           args=["-c", "import sys, ssim; print(sys.executable); print(ssim.__file__)"])
                    print(json.dumps({"statuses": exp.start(timeout=120), "log": exp.logs(who),
                                      "binary": ssim.binary()}))
                    exp.stop()
                """)
                proc = subprocess.run([f"{venv}/bin/python", "-c", script], capture_output=True, text=True,
                                      env=env, cwd=self.dir, timeout=300)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                out = json.loads(proc.stdout.strip().splitlines()[-1])
                self.assertEqual(out["statuses"], {"who": "completed"})
                executable, module = out["log"].split()
                self.assertEqual(os.path.dirname(executable), f"{venv}/bin")  # the venv's own Python
                self.assertTrue(module.startswith(venv), module)              # and its own ssim
                self.assertTrue(out["binary"].startswith(venv), out["binary"])
                # Without numpy in the venv, doctor says entities' python3 cannot use tensors.
                doctor = json.loads(subprocess.run([f"{venv}/bin/ssim", "doctor", "--json"], capture_output=True,
                                                   text=True, env=env).stdout)
                part = {p["name"]: p for p in doctor["parts"]}["python3 of entities"]
                numpy_there = subprocess.run([f"{venv}/bin/python", "-c", "import numpy"],
                                             capture_output=True).returncode == 0
                self.assertEqual(part["found"], numpy_there, part)
                if not numpy_there:
                    self.assertIn("numpy", part["fix"])
                # The inference service is in the wheel where libtorch is (Debian's libtorch-dev).
                infer = {p["name"]: p for p in doctor["parts"]}["ssim-infer"]
                self.assertEqual(infer["found"], os.path.exists(TORCH_CMAKE), infer)
                if not infer["found"]:
                    self.assertIn("pip install ssim again", infer["fix"])
                shutil.rmtree(os.path.join(self.dir, "fromvenv"), ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
