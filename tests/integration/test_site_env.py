"""A site's environment in setup: lines, for real: Debian's Lmod (installed) and
Environment Modules (its Debian package unpacked into the test's folder, since Debian
will not install both), module trees the tests write, a venv and a bash-only script.
ssim is started from dash with no module function and no module variables, as a batch
job or a node agent sees the world, and once from a bash that exported Lmod's function."""
import glob
import json
import os
import subprocess
import sys
import unittest

from ssimtest import SSIM, SsimTestCase
from test_slurm import SlurmCase, cluster_up

SITE_DEBS = "/var/cache/ssim-test"
LMOD_INIT = "/etc/profile.d/lmod.sh"


def bare_env(base, **extra):
    """What a batch job on a site without exported functions sees: no module function,
    no module system variables."""
    env = {k: v for k, v in base.items()
           if not k.startswith(("BASH_FUNC_", "LMOD", "MODULE", "_ModuleTable", "__LMOD", "LOADEDMODULES", "_LMFILES_"))}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    env.update(extra)
    return env


class SiteEnvironment(SsimTestCase):
    def setUp(self):
        super().setUp()
        # A `python` that only the module provides: it says it ran, then is the real one.
        self.bin = os.path.join(self.dir, "tree/apps/mypy/bin")
        self.write("tree/apps/mypy/bin/python", "#!/bin/sh\n"
                   "echo \"module python, MYVAR=$MYVAR\" > which_python.txt\n"
                   "exec /usr/bin/python3 \"$@\"\n")
        os.chmod(os.path.join(self.bin, "python"), 0o755)

    def run_file(self, text, env, shell="/bin/sh"):
        self.write("experiment.yaml", text)
        # ssim started from `shell` (dash by default), as a user's job script would.
        return subprocess.run([shell, "-c", f"exec {SSIM} run experiment.yaml"], cwd=self.dir, env=env,
                              capture_output=True, text=True, timeout=120)

    def entities(self, path):
        p = subprocess.run([SSIM, "status", path, "--json"], cwd=self.dir, env=self.env, capture_output=True,
                           text=True, timeout=60)
        return {e["name"]: e for e in json.loads(p.stdout)["entities"]}

    def experiment(self, tree, load_ok, name="site"):
        return f"""
experiment: {{name: {name}}}
models:
  - name: ok
    exe: python
    args: [-c, "import os; print('MYVAR', os.environ.get('MYVAR'))"]
    setup: ["module use {tree}", "module load mypy   # the site's Python"]
  - name: missing
    exe: python
    args: [-c, "open('ran', 'w')"]
    setup: ["module use {tree}", "module load PyTorch/9.9"]
  - name: plain_false
    exe: /bin/touch
    args: [ran]
    setup: ["true", "false", "true"]
"""

    def check_outcome(self, p, path="site", unknown_said="PyTorch/9.9"):
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        es = self.entities(path)
        self.assertEqual(es["ok"]["status"], "completed", es["ok"])
        with open(os.path.join(self.dir, path, "ok/which_python.txt")) as f:
            self.assertEqual(f.read().strip(), "module python, MYVAR=from-module")  # the module's python ran
        with open(os.path.join(self.dir, path, "ok/ok.out")) as f:
            self.assertIn("MYVAR from-module", f.read())
        missing = es["missing"]
        self.assertEqual(missing["status"], "failed")
        self.assertEqual(missing["exit_code"], 1)
        self.assertTrue(missing["last_error"].startswith("setup line 2 failed: module load PyTorch/9.9 (exit 1): "),
                        missing["last_error"])
        self.assertIn(unknown_said, missing["last_error"].split("(exit 1): ", 1)[1])
        self.assertFalse(os.path.exists(os.path.join(self.dir, path, "missing/ran")))  # never started
        plain = es["plain_false"]
        self.assertEqual((plain["status"], plain["exit_code"]), ("failed", 1))
        self.assertEqual(plain["last_error"], "setup line 2 failed: false (exit 1)")
        self.assertFalse(os.path.exists(os.path.join(self.dir, path, "plain_false/ran")))
        return es

    def lmod_tree(self):
        self.write("tree/lmod/mypy/1.0.lua", f'prepend_path("PATH", "{self.bin}")\nsetenv("MYVAR", "from-module")\n')
        return os.path.join(self.dir, "tree/lmod")

    def test_lmod_from_dash_without_the_module_function(self):
        self.assertTrue(os.path.exists(LMOD_INIT), "Debian's lmod is not installed (scripts/install-deps.sh)")
        p = self.run_file(self.experiment(self.lmod_tree(), True), bare_env(self.env))
        es = self.check_outcome(p)
        self.assertIn("The following module(s) are unknown", es["missing"]["last_error"])
        # The user sees the same in the run's own summary and in ssim status.
        self.assertIn("setup line 2 failed: module load PyTorch/9.9", p.stdout + p.stderr)
        st = self.ssim("status", "site")
        self.assertIn("setup line 2 failed: module load PyTorch/9.9 (exit 1)", st.stdout)

    def test_lmod_function_exported_by_the_users_bash(self):
        self.assertTrue(os.path.exists(LMOD_INIT), "Debian's lmod is not installed (scripts/install-deps.sh)")
        self.write("experiment.yaml", self.experiment(self.lmod_tree(), True))
        p = subprocess.run(["bash", "-c", f". {LMOD_INIT} && export -f module && exec {SSIM} run experiment.yaml"],
                           cwd=self.dir, env=bare_env(self.env), capture_output=True, text=True, timeout=120)
        self.check_outcome(p)

    def test_environment_modules_found_through_moduleshome(self):
        debs = sorted(glob.glob(os.path.join(SITE_DEBS, "environment-modules_*.deb")))
        self.assertTrue(debs, f"no environment-modules package in {SITE_DEBS} (scripts/install-deps.sh fetches it)")
        root = os.path.join(self.dir, "envmodules")
        subprocess.run(["dpkg-deb", "-x", debs[-1], root], check=True)
        # Its paths are compiled in: point them at the unpacked copy.
        for sub in ("usr/share/modules/init", "usr/lib/x86_64-linux-gnu", "etc/environment-modules"):
            for dirpath, _dirs, files in os.walk(os.path.join(root, sub)):
                for name in files:
                    f = os.path.join(dirpath, name)
                    if os.path.islink(f):
                        continue
                    with open(f, "rb") as fh:
                        data = fh.read()
                    for old in (b"/usr/share/modules", b"/usr/lib/x86_64-linux-gnu", b"/etc/environment-modules"):
                        data = data.replace(old, root.encode() + old)
                    with open(f, "wb") as fh:
                        fh.write(data)
        self.write("tree/tcl/mypy/1.0", f"#%Module\nprepend-path PATH {self.bin}\nsetenv MYVAR from-module\n")
        env = bare_env(self.env, MODULESHOME=os.path.join(root, "usr/share/modules"))
        p = self.run_file(self.experiment(os.path.join(self.dir, "tree/tcl"), True, name="em"), env)
        es = self.check_outcome(p, path="em")
        self.assertIn("Unable to locate a modulefile for 'PyTorch/9.9'", es["missing"]["last_error"])

    def test_venv_and_bash_only_scripts(self):
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", os.path.join(self.dir, "pyenv")], check=True)
        # An OpenFOAM-style etc/bashrc: bash only ([[ ]], arrays, `source`).
        self.write("app/etc/bashrc", "app_dirs=(bin lib)\n"
                   "if [[ -n ${BASH_VERSION:-} ]]; then export APP_HOME=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")/..\" && pwd)\"; fi\n"
                   "export APP_BIN=$APP_HOME/${app_dirs[0]}\n")
        self.write("experiment.yaml", f"""
experiment: {{name: venv}}
models:
  - name: train
    exe: python
    args: [-c, "import sys, os; print(sys.prefix, os.environ['APP_BIN'])"]
    setup: ["source {self.dir}/pyenv/bin/activate", ". {self.dir}/app/etc/bashrc"]
""")
        p = subprocess.run(["/bin/sh", "-c", f"exec {SSIM} run experiment.yaml"], cwd=self.dir,
                           env=bare_env(self.env), capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(self.dir, "venv/train/train.out")) as f:
            self.assertEqual(f.read().split(), [os.path.join(self.dir, "pyenv"), os.path.join(self.dir, "app/bin")])

    def test_dry_run_says_what_runs_and_which_python(self):
        self.write("experiment.yaml", self.experiment(self.lmod_tree(), True))
        p = self.ssim("run", "experiment.yaml", "--dry-run", check=0)
        self.assertIn("step script (bash; the first setup line that fails fails the step):", p.stdout)
        self.assertIn("program: python, found on the PATH the setup lines leave", p.stdout)
        # An explicit interpreter wins over setup lines.
        env = dict(self.env, SSIM_PYTHON=sys.executable)
        q = subprocess.run([SSIM, "run", "experiment.yaml", "--dry-run"], cwd=self.dir, env=env, capture_output=True,
                           text=True, timeout=60)
        self.assertIn(f"exec {sys.executable} -c", q.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "site")))  # a dry run writes nothing

    def test_every_way_a_setup_line_fails_is_said_and_nothing_is_left(self):
        # A line fails plainly, inside a function (as `module`, `conda activate` and `spack
        # load` are), in a sourced file, in a subshell, by a signal; or ends the step with
        # status 0 before the program (exit 0, exec). Each fails its entity, never runs the
        # program, and says why on its stderr and in its note.
        self.write("lib.sh", "echo sourced-why >&2\nfalse\necho never\n")
        tree = self.lmod_tree() if os.path.exists(LMOD_INIT) else None
        lines = {
            "plain": "echo plain-why >&2; false",
            "function": "f() { echo function-why >&2; false; }; f",
            "sourced": f". {self.dir}/lib.sh",
            "subshell": "(echo subshell-why >&2; exit 3)",
            "signal": "echo signal-why >&2; kill -TERM $$",
            "exit0": "exit 0",
            "exec": "exec true",
        }
        models = "".join(f"  - {{name: {n}, exe: /bin/touch, args: [ran], setup: [{json.dumps(l)}]}}\n"
                         for n, l in lines.items())
        if tree:
            models += f"  - {{name: module, exe: /bin/touch, args: [ran], setup: [\"module use {tree}\", \"module load nosuch\"]}}\n"
        p = self.run_file("experiment: {name: ways}\nmodels:\n" + models, bare_env(self.env))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        es = self.entities("ways")
        expect = {
            "plain": ("setup line 1 failed: echo plain-why >&2; false (exit 1): plain-why", 1),
            "function": ("setup line 1 failed: f() { echo function-why >&2; false; }; f (exit 1): function-why", 1),
            "sourced": (f"setup line 1 failed: . {self.dir}/lib.sh (exit 1): sourced-why", 1),
            "subshell": ("setup line 1 failed: (echo subshell-why >&2; exit 3) (exit 3): subshell-why", 3),
            "signal": ("setup line 1 failed: echo signal-why >&2; kill -TERM $$ (exit 143): signal-why", None),
            "exit0": ("setup line 1 ended the step before the program started: exit 0", 1),
        }
        for name, (note, code) in expect.items():
            with self.subTest(name):
                e = es[name]
                self.assertEqual((e["status"], e["exit_code"], e["last_error"]), ("failed", code, note), e)
                if code is None:
                    self.assertEqual(e["signal"], "SIGTERM", e)  # ended by the signal, as the program would
                run_dir = os.path.join(self.dir, "ways", name)
                self.assertFalse(os.path.exists(os.path.join(run_dir, "ran")))
                self.assertFalse(os.path.exists(os.path.join(run_dir, ".ssim-setup.err")))  # nothing left
                with open(os.path.join(run_dir, f"{name}.err")) as f:
                    err = f.read()
                self.assertIn("ssim: setup line 1 ", err)
                if name not in ("exit0",):
                    self.assertIn(f"{name}-why", err)  # what the line said, on the step's stderr too
        e = es["exec"]
        self.assertEqual(e["status"], "failed", e)
        self.assertIn("the setup lines ended the step before the program started", json.dumps(e))
        if tree:
            e = es["module"]
            self.assertEqual(e["status"], "failed", e)
            self.assertTrue(e["last_error"].startswith("setup line 2 failed: module load nosuch (exit 1): "), e)
            self.assertIn("nosuch", e["last_error"].split("(exit 1): ", 1)[1])

    def test_resume_reruns_a_failed_setup(self):
        self.write("experiment.yaml", """
experiment: {name: again}
models:
  - {name: m, exe: /bin/echo, args: [done], setup: ["test -f ready"]}
""")
        p = self.ssim("run", "experiment.yaml")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(self.entities("again")["m"]["last_error"], "setup line 1 failed: test -f ready (exit 1)")
        self.write("again/m/ready", "")
        self.ssim("run", "experiment.yaml", "--resume", check=0)
        m = self.entities("again")["m"]
        self.assertEqual(m["status"], "completed", m)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "again/m/.ssim-setup-failed")))


@unittest.skipUnless(cluster_up(), "no Slurm cluster (scripts/slurm-cluster.sh up)")
class SiteEnvironmentOnSlurm(SlurmCase, SiteEnvironment):
    """The same lines as steps of the Slurm test cluster: a one-task step through a node
    agent, a two-task step through srun, from a job script's dash."""

    def test_lmod_in_slurm_steps(self):
        self.assertTrue(os.path.exists(LMOD_INIT), "Debian's lmod is not installed (scripts/install-deps.sh)")
        self.allocate(3)  # two for the 2-node step, one shared by the others
        text = self.experiment(self.lmod_tree(), True).replace("experiment: {name: site}",
                                                                "experiment: {name: site, launcher: slurm}")
        text += f"""
  - name: ranks
    exe: python
    args: [-c, "import os; print(os.environ['SLURMD_NODENAME'], os.environ.get('MYVAR'))"]
    setup: ["module use {self.dir}/tree/lmod", "module load mypy"]
    run: {{ntasks: 2, nodes: 2}}
"""
        p = self.run_file(text, bare_env(self.env))
        es = self.check_outcome(p)
        self.assertEqual(es["ranks"]["status"], "completed", es["ranks"])
        with open(os.path.join(self.dir, "site/ranks/ranks.out")) as f:
            lines = sorted(f.read().split("\n")[:-1])
        self.assertEqual(len(set(lines)), 2, lines)  # one rank on each of two nodes
        self.assertTrue(all(line.split()[0] in self.nodes and line.split()[1] == "from-module" for line in lines), lines)

    # The local cases run once, in SiteEnvironment.
    test_environment_modules_found_through_moduleshome = None
    test_lmod_function_exported_by_the_users_bash = None
    test_venv_and_bash_only_scripts = None
    test_dry_run_says_what_runs_and_which_python = None
    test_resume_reruns_a_failed_setup = None
    test_lmod_from_dash_without_the_module_function = None


if __name__ == "__main__":
    unittest.main()
