"""ssim installed like real software: `cmake --install` into a temporary prefix, the
installed ssim run from another directory (and through a symlink), a C++ program built
against the installed package (find_package and pkg-config), and C and Fortran programs
(pkg-config), exchanging tensors with a Python consumer that imports the installed module, and a missing part reported as the
environment failing (exit 3)."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from ssimtest import SsimTestCase, free_port

BUILD = os.environ.get("SSIM_BUILD_DIR", os.path.join(os.path.dirname(__file__), "../../build"))

PRODUCER = r"""
#include <ssim/client.hpp>
#include <vector>
int main() {
  ssim::client::Client client;  // SSDB and SSDB_PASSWORD from ssim
  std::vector<double> v = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5};
  client.put_tensor("installed", v.data(), {2, 3}, ssim::client::DType::F64);
  return 0;
}
"""

CMAKELISTS = """
cmake_minimum_required(VERSION 3.25)
project(uses_ssim LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(ssim REQUIRED)
add_executable(producer producer.cpp)
target_link_libraries(producer PRIVATE ssim::client)
"""

C_PRODUCER = r"""
#include <ssim_client.h>
#include <stdio.h>
int main(void) {
  ssim_client* c;
  const int32_t v[3] = {7, 8, 9};
  const uint64_t dims[1] = {3};
  if (ssim_client_new(&c) || ssim_put_tensor(c, "from_c", v, dims, 1, SSIM_I32, SSIM_LAYOUT_C)) {
    fprintf(stderr, "%s\n", ssim_last_error());
    return 1;
  }
  ssim_client_free(c);
  return 0;
}
"""

FORTRAN_PRODUCER = """
program producer
  use ssim_client
  implicit none
  type(client_type) :: c
  real(8) :: a(2, 3)
  a = reshape([11, 21, 12, 22, 13, 23], [2, 3])
  if (c%initialize() /= SSIM_OK) error stop 1
  if (c%put_tensor("from_fortran", a) /= SSIM_OK) error stop 2
end program
"""

CONSUMER = """
import json, ssim
c = ssim.Client()
t = c.get_tensor("installed")
json.dump({"module": ssim.__file__, "shape": list(t.shape), "values": t.ravel().tolist(),
           "c": c.get_tensor("from_c").tolist(), "fortran": c.get_tensor("from_fortran").tolist()},
          open("result.json", "w"))
"""


class Installed(SsimTestCase):
    @classmethod
    def setUpClass(cls):
        cls.prefix = tempfile.mkdtemp(prefix="ssim-prefix-")
        subprocess.run(["cmake", "--install", BUILD, "--prefix", cls.prefix], check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.prefix, ignore_errors=True)

    def test_the_installed_ssim_runs_a_cpp_producer_and_a_python_consumer(self):
        # Through a symlink, as ~/bin/ssim -> PREFIX/bin/ssim.
        os.makedirs(os.path.join(self.dir, "bin"))
        ssim = os.path.join(self.dir, "bin/ssim")
        os.symlink(os.path.join(self.prefix, "bin/ssim"), ssim)
        doctor = subprocess.run([ssim, "doctor", "--json"], capture_output=True, text=True, env=self.env)
        parts = {p["name"]: p for p in json.loads(doctor.stdout)["parts"]}
        self.assertEqual(parts["ssim-supervise"]["path"], os.path.join(self.prefix, "libexec/ssim/ssim-supervise"))
        self.assertEqual(parts["ssim-door"]["path"], os.path.join(self.prefix, "libexec/ssim/ssim-door"))
        self.assertTrue(parts["ssim-door"]["found"], doctor.stdout)
        self.assertTrue(parts["python3 of entities"]["found"], doctor.stdout)

        # The producer, built against the installed CMake package...
        src = os.path.join(self.dir, "src")
        os.makedirs(src)
        self.write("src/producer.cpp", PRODUCER)
        self.write("src/CMakeLists.txt", CMAKELISTS)
        env = dict(self.env, CMAKE_PREFIX_PATH=self.prefix)
        for cmd in (["cmake", "-S", src, "-B", os.path.join(self.dir, "obj")],
                    ["cmake", "--build", os.path.join(self.dir, "obj")]):
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # ...and with pkg-config.
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "ssim-client"], capture_output=True, text=True,
                               env=dict(self.env, PKG_CONFIG_PATH=os.path.join(self.prefix, "lib/pkgconfig")))
        self.assertEqual(flags.returncode, 0, flags.stderr)
        p = subprocess.run(["g++", "-o", os.path.join(self.dir, "producer-pc"), os.path.join(src, "producer.cpp"),
                            *flags.stdout.split()], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        # The C and Fortran clients, with their pkg-config files.
        self.write("src/c_producer.c", C_PRODUCER)
        self.write("src/f_producer.f90", FORTRAN_PRODUCER)
        for compiler, source, package in (("cc", "c_producer.c", "ssim-client-c"),
                                          ("gfortran", "f_producer.f90", "ssim-client-fortran")):
            flags = subprocess.run(["pkg-config", "--cflags", "--libs", package], capture_output=True, text=True,
                                   env=dict(self.env, PKG_CONFIG_PATH=os.path.join(self.prefix, "lib/pkgconfig")))
            self.assertEqual(flags.returncode, 0, flags.stderr)
            p = subprocess.run([compiler, "-o", os.path.join(self.dir, source.split(".")[0]), os.path.join(src, source),
                                *flags.stdout.split()], capture_output=True, text=True, cwd=self.dir)
            self.assertEqual(p.returncode, 0, p.stderr)

        work = os.path.join(self.dir, "elsewhere")
        os.makedirs(work)
        self.write("elsewhere/consumer.py", CONSUMER)
        self.write("elsewhere/experiment.yaml", f"""
experiment: {{name: inst}}
orchestrator: {{port: {free_port()}}}
models:
  - {{name: produce, exe: {os.path.join(self.dir, "obj/producer")}}}
  - {{name: produce_c, exe: {os.path.join(self.dir, "c_producer")}}}
  - {{name: produce_fortran, exe: {os.path.join(self.dir, "f_producer")}}}
  - {{name: consume, exe: /usr/bin/python3, args: [consumer.py], after: [produce, produce_c, produce_fortran],
     files: {{copy: [consumer.py]}}}}
""")
        run = subprocess.run([ssim, "run", "experiment.yaml"], cwd=work, capture_output=True, text=True, env=self.env,
                             timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        with open(os.path.join(work, "inst/consume/result.json")) as f:
            result = json.load(f)
        self.assertEqual(result["shape"], [2, 3])
        self.assertEqual(result["values"], [1.5, 2.5, 3.5, 4.5, 5.5, 6.5])
        self.assertEqual(result["c"], [7, 8, 9])
        self.assertEqual(result["fortran"], [[11.0, 12.0, 13.0], [21.0, 22.0, 23.0]])
        self.assertTrue(result["module"].startswith(os.path.join(self.prefix, "lib/python3.11/dist-packages/ssim")),
                        result["module"])

    def test_the_debian_package_holds_a_working_ssim(self):
        out = os.path.join(self.dir, "deb")
        p = subprocess.run(["cpack", "-G", "DEB", "-B", out], cwd=BUILD, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        deb = [f for f in os.listdir(out) if f.endswith(".deb")][0]
        info = subprocess.run(["dpkg-deb", "-f", os.path.join(out, deb), "Depends"], capture_output=True, text=True)
        for needed in ("redis-server", "python3-numpy", "libyaml-cpp", "libhiredis", "libspdlog"):
            self.assertIn(needed, info.stdout)
        # Unpacked where dpkg would put it (below a root of our own), it runs the quickstart.
        root = os.path.join(self.dir, "root")
        subprocess.run(["dpkg-deb", "-x", os.path.join(out, deb), root], check=True)
        quickstart = os.path.join(os.path.dirname(__file__), "../../examples/quickstart")
        work = os.path.join(self.dir, "qs")
        shutil.copytree(quickstart, work)
        with open(os.path.join(work, "experiment.yaml")) as f:
            text = f.read().replace("port: 6780", f"port: {free_port()}")
        with open(os.path.join(work, "experiment.yaml"), "w") as f:
            f.write(text)
        ssim = os.path.join(root, "usr/bin/ssim")
        run = subprocess.run([ssim, "run", "experiment.yaml"], cwd=work, capture_output=True, text=True, env=self.env,
                             timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        logs = subprocess.run([ssim, "logs", "runs/quickstart", "consumer"], cwd=work, capture_output=True, text=True,
                              env=self.env)
        self.assertIn("total: 8 values", logs.stdout)

    def test_missing_mpirun_or_scheduler_commands_are_the_environment_failing(self):
        bare = dict(self.env, PATH="/nonexistent")
        cases = [
            ("experiment: {name: m}\nmodels:\n  - {name: a, exe: /bin/true, run: {ntasks: 2, mpi: mpirun}}\n",
             [], "a is started with mpirun, which is not on the PATH (/nonexistent)"),
            ("experiment: {name: s, launcher: slurm}\nmodels:\n  - {name: a, exe: /bin/true}\n",
             ["--batch"], "the slurm launcher submits jobs with sbatch, which is not on the PATH (/nonexistent)"),
        ]
        for text, args, message in cases:
            with self.subTest(message=message):
                self.write("experiment.yaml", text)
                p = subprocess.run([os.path.join(self.prefix, "bin/ssim"), "run", "experiment.yaml", *args],
                                   cwd=self.dir, capture_output=True, text=True, env=bare)
                self.assertEqual(p.returncode, 3, p.stderr)
                self.assertIn(message, p.stderr)
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                self.assertEqual(sorted(os.listdir(self.dir)), ["experiment.yaml"])

    def test_a_missing_supervisor_is_the_environment_failing(self):
        lonely = os.path.join(self.dir, "lonely")
        os.makedirs(lonely)
        shutil.copy(os.path.join(self.prefix, "bin/ssim"), lonely)
        self.write("experiment.yaml", "experiment: {name: alone}\nmodels:\n  - {name: m, exe: /bin/true}\n")
        env = {k: v for k, v in self.env.items() if k != "SSIM_SUPERVISE"}
        p = subprocess.run([os.path.join(lonely, "ssim"), "run", "experiment.yaml"], cwd=self.dir, capture_output=True,
                           text=True, env=env)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("ssim-supervise", p.stderr)
        self.assertIn(os.path.join(lonely, "ssim-supervise"), p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "alone")))
        p = subprocess.run([os.path.join(lonely, "ssim"), "doctor"], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("MISSING  ssim-supervise", p.stdout)


    def lonely_ssim(self):
        """ssim and its supervisor copied alone into a folder (no ssim-door, no ssim-infer
        beside them), and the environment that finds nothing else: (folder, env)."""
        lonely = os.path.join(self.dir, "lonely")
        os.makedirs(lonely)
        for program in ("ssim", "ssim-supervise"):
            shutil.copy(os.path.join(self.prefix, "bin/ssim" if program == "ssim" else "libexec/ssim/" + program),
                        lonely)
        return lonely, {k: v for k, v in self.env.items() if k != "SSIM_SUPERVISE"}

    def refused_alone(self, check):
        """`validate` and `run` of experiment.yaml by an ssim alone in a folder: each exits 2
        with one line, which `check` reads; returns that ssim's folder and environment."""
        lonely, env = self.lonely_ssim()
        for verb in ("validate", "run"):
            p = subprocess.run([os.path.join(lonely, "ssim"), verb, "experiment.yaml"], cwd=self.dir,
                               capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            check(p.stderr)
        return lonely, env

    def test_without_the_door_smartredis_is_refused_before_anything(self):
        self.write("experiment.yaml", "experiment: {name: sr}\norchestrator: {port: auto}\n"
                   "models:\n  - {name: m, exe: /bin/true, smartredis: true}\n")
        self.refused_alone(lambda said: self.assertIn(
            "experiment.yaml:4:43: models[0].smartredis: this ssim has no SmartRedis door", said))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "sr")))

    def test_without_the_inference_service_inference_is_refused_before_anything_and_doctor_says_how(self):
        self.write("experiment.yaml", "experiment: {name: inf}\norchestrator:\n  port: auto\n  inference: true\n"
                   "models:\n  - {name: m, exe: /bin/true}\n")

        def said_how(said):
            self.assertIn("experiment.yaml:4:", said)
            self.assertIn("orchestrator.inference", said)
            self.assertIn("apt-get install libtorch-dev, then build ssim again", said)
            self.assertEqual(sorted(os.listdir(self.dir)), ["experiment.yaml", "lonely"])

        lonely, env = self.refused_alone(said_how)
        doctor = subprocess.run([os.path.join(lonely, "ssim"), "doctor", "--json"], capture_output=True, text=True,
                                env=env)
        part = {p["name"]: p for p in json.loads(doctor.stdout)["parts"]}["ssim-infer"]
        self.assertEqual((part["found"], part["optional"]), (False, True), part)
        self.assertIn("libtorch-dev", part["fix"])
        # The installed ssim has it where libtorch was found at build time.
        doctor = subprocess.run([os.path.join(self.prefix, "bin/ssim"), "doctor", "--json"], capture_output=True,
                                text=True, env=self.env)
        part = {p["name"]: p for p in json.loads(doctor.stdout)["parts"]}["ssim-infer"]
        self.assertEqual(part["found"], os.path.exists(os.path.join(self.prefix, "libexec/ssim/ssim-infer")), part)


ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
# `cmake` that configures as the real one and builds nothing: what scripts/build.sh asks
# of CMake, without the minutes of compiling.
CONFIGURE_ONLY = """#!/bin/sh
for a in "$@"; do [ "$a" = --build ] && exit 0; done
exec /usr/bin/cmake "$@"
"""


class BuildScripts(unittest.TestCase):
    """The README's two commands share one build folder: whichever ran first, the test
    command builds everything it tests and the quickstart only what it runs."""

    def test_the_quickstart_and_the_full_build_in_either_order_configure_what_each_needs(self):
        tree = tempfile.mkdtemp(prefix="ssim-tree-")
        self.addCleanup(shutil.rmtree, tree, ignore_errors=True)
        files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True).stdout
        for name in files.decode().split("\0"):
            if name and os.path.isfile(os.path.join(ROOT, name)):
                os.makedirs(os.path.dirname(os.path.join(tree, name)), exist_ok=True)
                shutil.copy2(os.path.join(ROOT, name), os.path.join(tree, name))
        shim = os.path.join(tree, "shim")
        os.makedirs(shim)
        with open(os.path.join(shim, "cmake"), "w") as f:
            f.write(CONFIGURE_ONLY)
        os.chmod(os.path.join(shim, "cmake"), 0o755)
        env = dict(os.environ, PATH=shim + ":" + os.environ["PATH"])

        def build(*args):
            p = subprocess.run([os.path.join(tree, "scripts/build.sh"), *args], capture_output=True, text=True,
                               env=env, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(os.path.join(tree, "build/CMakeCache.txt")) as f:
                cache = dict(re.findall(r"^([A-Za-z_]+):[A-Z]+=(.*)$", f.read(), re.M))
            with open(os.path.join(tree, "build/build.ninja")) as f:
                ninja = f.read()
            return cache, ninja

        def on(value):
            return value.upper() in ("ON", "1", "TRUE", "YES")

        for order in (["--quickstart", "", "--quickstart", ""], ["", "--quickstart", ""]):
            shutil.rmtree(os.path.join(tree, "build"), ignore_errors=True)
            for step in order:
                with self.subTest(order=order, step=step or "full"):
                    cache, ninja = build(*([step] if step else []))
                    torch = not cache.get("Torch_DIR", "").endswith("NOTFOUND") and "Torch_DIR" in cache
                    full = step == ""
                    for option in ("SSIM_PYTHON", "SSIM_FORTRAN", "SSIM_EXAMPLES", "BUILD_TESTING"):
                        self.assertEqual(on(cache[option]), full, option)
                    # The inference service: in every full build where libtorch is, never in the quickstart's.
                    self.assertEqual(on(cache["SSIM_INFERENCE"]), full and torch, cache.get("Torch_DIR"))
                    self.assertEqual("build apps/ssim/ssim-infer:" in ninja, full and torch)


if __name__ == "__main__":
    unittest.main()
