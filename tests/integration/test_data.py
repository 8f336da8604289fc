"""Data that lasts: --resume gives rerun entities the database contents of
the earlier attempt, and an external database is used and left as it was."""
import os
import subprocess
import unittest

from ssimtest import SsimTestCase, free_port, wait_for

PUT = "import ssim, numpy; ssim.Client().put_tensor('x', numpy.arange(5.0))"
GET = "import ssim; print(ssim.Client().get_tensor(chr(120)).tolist())"


class Resume(SsimTestCase):
    def experiment(self, snapshot, persist="false"):
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: r}}
orchestrator: {{port: {port}, snapshot: {snapshot}, persist: {persist}}}
models:
  - {{name: p, exe: /usr/bin/python3, args: [-c, "{PUT}"]}}
  - name: c
    after: [p]
    exe: /bin/sh
    args: [-c, 'test -e ../go || {{ echo not yet >&2; exit 3; }}; /usr/bin/python3 -c "{GET}"']
""")

    def test_resume_gives_the_rerun_consumer_the_earlier_producers_data(self):
        self.experiment("true")
        self.ssim("run", "experiment.yaml", check=1)  # c fails: no ../go yet
        self.assertTrue(os.path.exists(os.path.join(self.dir, "r/orchestrator/dump.rdb")))
        open(os.path.join(self.dir, "r/go"), "w").close()
        self.ssim("run", "experiment.yaml", "--resume", check=0)
        _, e = self.status()
        self.assertEqual((e["p"]["attempt"], e["c"]["attempt"]), (1, 2))  # p did not run again
        self.assertEqual(self.ssim("logs", "c", check=0).stdout, "[0.0, 1.0, 2.0, 3.0, 4.0]\n")
        # The first attempt is remembered, and what it printed is kept beside the new output.
        earlier = e["c"]["earlier_attempts"]
        self.assertEqual([(a["attempt"], a["status"], a["exit_code"], a["stderr"]) for a in earlier],
                         [(1, "failed", 3, "c.err.1")])
        with open(os.path.join(self.dir, "r/c/c.err.1")) as f:
            self.assertEqual(f.read(), "not yet\n")
        self.assertEqual(self.ssim("logs", "c", "--stderr", check=0).stdout, "")

    def test_resume_of_a_persistent_experiment_reuses_its_running_database(self):
        self.experiment("false", persist="true")  # no snapshot: only the running server has x
        self.ssim("run", "experiment.yaml", check=1)
        self.addCleanup(self.ssim, "stop", "r")
        _, before = self.status()
        self.assertEqual(before["orchestrator"]["status"], "running")
        open(os.path.join(self.dir, "r/go"), "w").close()
        p = self.ssim("run", "experiment.yaml", "--resume", check=0)
        self.assertIn("reusing the database left running at", p.stderr)
        _, after = self.status()
        self.assertEqual(after["orchestrator"]["pid"], before["orchestrator"]["pid"])  # the same server
        self.assertEqual(after["orchestrator"]["status"], "running")
        os.kill(after["orchestrator"]["pid"], 0)
        self.assertEqual(self.ssim("logs", "c", check=0).stdout, "[0.0, 1.0, 2.0, 3.0, 4.0]\n")
        self.ssim("stop", "r", check=0)
        wait_for(lambda: not os.path.exists(f"/proc/{after['orchestrator']['pid']}"), what="the database ending")

    def test_without_snapshot_a_resumed_database_starts_empty(self):
        self.experiment("false")
        self.ssim("run", "experiment.yaml", check=1)
        open(os.path.join(self.dir, "r/go"), "w").close()
        self.ssim("run", "experiment.yaml", "--resume", check=1)
        self.assertIn("x", self.ssim("logs", "c", "--stderr", check=0).stdout)


class External(SsimTestCase):
    def test_an_external_database_is_used_and_left_running(self):
        port = free_port()
        self.write("secret", "s3cret-pw\n")
        redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                  "--requirepass", "s3cret-pw", "--dir", self.dir],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(redis.wait)
        self.addCleanup(redis.kill)
        wait_for(lambda: subprocess.run(["redis-cli", "-p", str(port), "-a", "s3cret-pw", "--no-auth-warning", "ping"],
                                        capture_output=True, text=True).stdout.strip() == "PONG", what="redis")
        self.write("experiment.yaml", f"""
experiment: {{name: ext}}
orchestrator: {{address: "127.0.0.1:{port}", password_file: secret}}
models:
  - {{name: p, exe: /usr/bin/python3, args: [-c, "{PUT}"]}}
""")
        os.chmod(os.path.join(self.dir, "secret"), 0o644)
        p = self.ssim("run", "experiment.yaml", check=0)
        self.assertIn("secret (orchestrator.password_file) can be read by other users (mode 644); chmod 600", p.stderr)
        os.chmod(os.path.join(self.dir, "secret"), 0o600)
        self.assertNotIn("warning", self.ssim("validate", "experiment.yaml", check=0).stderr)
        self.assertIsNone(redis.poll(), "ssim stopped a database it did not start")
        env = self.ssim("env", "ext", check=0).stdout
        self.assertEqual(env, f"export SSDB=127.0.0.1:{port}\nexport SSDB_PASSWORD=s3cret-pw\n")
        got = subprocess.run(["/usr/bin/python3", "-c",
                              "import ssim; print(ssim.Client.from_experiment('ext').get_tensor('x').tolist())"],
                             cwd=self.dir, env=self.env, capture_output=True, text=True)
        self.assertEqual(got.stdout, "[0.0, 1.0, 2.0, 3.0, 4.0]\n", got.stderr)

    def test_an_external_database_lost_mid_run_is_reported(self):
        port = free_port()
        redis = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(redis.wait)
        self.addCleanup(redis.kill)
        wait_for(lambda: subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True,
                                        text=True).stdout.strip() == "PONG", what="redis")
        self.write("experiment.yaml", f"experiment: {{name: lost}}\norchestrator: {{address: '127.0.0.1:{port}'}}\n"
                   "models:\n  - {name: w, exe: /bin/sh, args: [-c, 'until test -e ../go; do sleep 0.05; done']}\n")
        run = self.ssim_background("run", "experiment.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "lost/.ssim/manifest.json")), what="manifest")
        wait_for(lambda: self.status()[1]["w"]["status"] == "running", what="w running")
        redis.kill()
        redis.wait()
        wait_for(lambda: "does not answer any more" in open(os.path.join(self.dir, "lost/.ssim/events.ndjson")).read(),
                 timeout=15, what="the loss reported")
        open(os.path.join(self.dir, "lost/go"), "w").close()
        _, err = run.communicate(timeout=30)
        self.assertEqual(run.returncode, 3, err)
        self.assertIn(f"the external database at 127.0.0.1:{port} (orchestrator.address) does not answer any more", err)

    def test_an_external_database_that_does_not_answer_is_an_environment_error(self):
        self.write("experiment.yaml", f"experiment: {{name: ext}}\norchestrator: {{address: '127.0.0.1:{free_port()}'}}\n"
                   "models:\n  - {name: p, exe: /bin/true}\n")
        p = self.ssim("run", "experiment.yaml", check=3)
        self.assertIn("the external database (orchestrator.address) does not answer", p.stderr)


class PythonApi(unittest.TestCase):
    def test_every_client_method_has_named_arguments_and_a_docstring(self):
        import ssim
        for name in dir(ssim.Client):
            if name.startswith("_"):
                continue
            doc = getattr(ssim.Client, name).__doc__ or ""
            self.assertNotIn("arg0", doc, name)
            if callable(getattr(ssim.Client, name)):
                self.assertGreater(len(doc.strip().splitlines()), 1, f"{name} has no docstring")


if __name__ == "__main__":
    unittest.main()
