"""The orchestrator with a real redis-server: single shard, 3-shard cluster, failures."""
import json
import os
import signal
import socket
import stat
import subprocess
import unittest

from ssimtest import SsimTestCase, free_port, processes_with_env, wait_for

REDIS_CLI = "redis-cli"


def read(path):
    with open(path) as f:
        return f.read().strip()


def cli(port, *args, password=None):
    cmd = [REDIS_CLI, "-p", str(port)]
    if password:
        cmd += ["--no-auth-warning", "-a", password]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=10).stdout.strip()


class SingleShard(SsimTestCase):
    def test_entity_uses_ssdb_and_password_and_no_password_is_refused(self):
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: one}}
orchestrator: {{port: {port}}}
models:
  - name: writer
    exe: /bin/sh
    args:
      - -c
      - |
        H=$${{SSDB%:*}}; P=$${{SSDB#*:}}
        redis-cli -h $$H -p $$P --no-auth-warning -a "$$SSDB_PASSWORD" SET greeting hello
        redis-cli -h $$H -p $$P --no-auth-warning -a "$$SSDB_PASSWORD" GET greeting
        redis-cli -h $$H -p $$P GET greeting
        echo "SSDB=$$SSDB"
""")
        self.ssim("run", "experiment.yaml", check=0)
        out = [line for line in self.ssim("logs", "writer", check=0).stdout.splitlines() if line]
        self.assertEqual(out[0], "OK")
        self.assertEqual(out[1], "hello")
        self.assertIn("NOAUTH", out[2])
        self.assertEqual(out[3], f"SSDB=127.0.0.1:{port}")
        pw = os.path.join(self.dir, "one/.ssim/db_password")
        self.assertEqual(stat.S_IMODE(os.stat(pw).st_mode), 0o600)
        self.assertGreaterEqual(len(read(pw)), 32)
        _, s = self.status()
        self.assertEqual(s["orchestrator"]["type"], "database")
        self.assertEqual(s["orchestrator"]["status"], "completed")  # shut down at the end
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", self.manifest("one")["id"]), [])

    def test_password_none_warns_and_sets_no_password(self):
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: open}}
orchestrator: {{port: {port}, password: none}}
models:
  - {{name: env, exe: /bin/sh, args: [-c, 'echo "[$${{SSDB_PASSWORD-unset}}]"']}}
""")
        p = self.ssim("run", "experiment.yaml", check=0)
        self.assertIn("no password", p.stderr)
        self.assertEqual(self.ssim("logs", "env", check=0).stdout, "[unset]\n")

    def test_persist_leaves_it_up_and_stop_ends_it(self):
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: keep}}
orchestrator: {{port: {port}, persist: true}}
models:
  - {{name: a, exe: /bin/true}}
""")
        self.ssim("run", "experiment.yaml", check=0)
        password = read(os.path.join(self.dir, "keep/.ssim/db_password"))
        self.assertEqual(cli(port, "PING", password=password), "PONG")
        _, s = self.status()
        self.assertEqual(s["orchestrator"]["status"], "running")
        self.ssim("stop", check=0)
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", self.manifest("keep")["id"]), [])
        self.assertNotEqual(cli(port, "PING", password=password), "PONG")

    def test_database_killed_mid_run_is_reported(self):
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: lost}}
orchestrator: {{port: {port}}}
models:
  - {{name: waiter, exe: /bin/sleep, args: ["3"]}}
""")
        run = self.run_until("lost", "waiter")
        db_pid = self.status()[1]["orchestrator"]["pid"]
        os.kill(db_pid, signal.SIGKILL)
        out, err = run.communicate(timeout=30)
        self.assertEqual(run.returncode, 1)
        self.assertIn("database orchestrator ended while entities run", err)
        _, s = self.status()
        self.assertEqual(s["orchestrator"]["status"], "failed")
        self.assertEqual(s["orchestrator"]["signal"], "SIGKILL")
        self.assertEqual(s["waiter"]["status"], "completed")


class Cluster(SsimTestCase):
    def test_three_shards_form_a_cluster_and_keys_spread(self):
        port = free_port(3)
        self.write("experiment.yaml", f"""
experiment: {{name: cl}}
orchestrator: {{port: {port}, shards: 3}}
models:
  - name: writer
    exe: /bin/sh
    args:
      - -c
      - |
        echo "SSDB=$$SSDB"
        redis-cli -p {port} --no-auth-warning -a "$$SSDB_PASSWORD" CLUSTER INFO | grep cluster_state
        for k in a b c d e f g h i j; do redis-cli -c -p {port} --no-auth-warning -a "$$SSDB_PASSWORD" SET $$k 1 > /dev/null; done
        for p in {port} {port + 1} {port + 2}; do redis-cli -p $$p --no-auth-warning -a "$$SSDB_PASSWORD" DBSIZE; done
""")
        self.ssim("run", "experiment.yaml", check=0)
        out = self.ssim("logs", "writer", check=0).stdout.split()
        self.assertEqual(out[0], f"SSDB=127.0.0.1:{port},127.0.0.1:{port + 1},127.0.0.1:{port + 2}")
        self.assertEqual(out[1].strip(), "cluster_state:ok")
        sizes = [int(x) for x in out[2:5]]
        self.assertEqual(sum(sizes), 10)
        self.assertTrue(all(n > 0 for n in sizes), sizes)
        _, s = self.status()
        self.assertEqual([s[f"orchestrator_{i}"]["type"] for i in range(3)], ["database"] * 3)


class StartFailures(SsimTestCase):
    def run_failing(self, orchestrator):
        self.write("experiment.yaml", f"""
experiment: {{name: bad}}
orchestrator: {orchestrator}
models:
  - {{name: a, exe: /bin/true}}
""")
        p = self.ssim("run", "experiment.yaml", check=3)
        _, s = self.status()
        self.assertEqual(s["a"]["status"], "cancelled")
        self.assertEqual(s["a"]["job_id"], "")  # never started
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", self.manifest("bad")["id"]), [])
        return p.stderr

    def test_port_in_use_names_the_port_and_holder(self):
        # Known before anything starts: exit 3, one line, nothing written.
        port = free_port()
        self.write("experiment.yaml", f"experiment: {{name: bad}}\norchestrator: {{port: {port}}}\n"
                   "models:\n  - {name: a, exe: /bin/true}\n")
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
            s.listen()
            err = self.ssim("run", "experiment.yaml", check=3).stderr
        self.assertIn(f"port {port} on 127.0.0.1 is already in use by python", err)
        self.assertIn(f"pid {os.getpid()}", err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad")))

    def test_port_auto_and_a_port_held_by_another_experiment(self):
        self.write("first.yaml", "experiment: {name: first}\norchestrator: {port: auto}\n"
                   "models:\n  - {name: long, exe: /bin/sleep, args: ['300']}\n")
        run = self.ssim_background("run", "first.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "first/.ssim/manifest.json")), what="manifest")
        wait_for(lambda: self.status("first.yaml")[1]["long"]["status"] == "running", what="long running")
        address = self.status("first.yaml")[1]["orchestrator"]["address"]
        port = int(address.split(":")[1])
        self.assertTrue(20000 <= port < 55000, address)
        self.assertIn(f"at {address}", self.ssim("status", "first.yaml", check=0).stdout)
        self.assertIn(f"SSDB={address}", self.ssim("env", "first.yaml", check=0).stdout.replace("'", ""))
        # A second experiment asking for that port is told whose it is and how to free it.
        self.write("second.yaml", f"experiment: {{name: second}}\norchestrator: {{port: {port}}}\n"
                   "models:\n  - {name: a, exe: /bin/true}\n")
        err = self.ssim("run", "second.yaml", check=3).stderr
        first = os.path.join(self.dir, "first")
        self.assertIn(f"the database of experiment first ({first}); end it with ssim stop {first}", err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "second")))
        self.ssim("stop", "first", check=0)
        self.assertEqual(run.wait(timeout=30), 1)

    def test_running_the_same_experiment_twice_says_it_runs_before_its_port(self):
        port = free_port()
        self.write("twice.yaml", f"experiment: {{name: twice}}\norchestrator: {{port: {port}}}\n"
                   "models:\n  - {name: long, exe: /bin/sleep, args: ['300']}\n")
        run = self.ssim_background("run", "twice.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "twice/.ssim/manifest.json")), what="manifest")
        wait_for(lambda: self.status("twice.yaml")[1]["long"]["status"] == "running", what="long running")
        err = self.ssim("run", "twice.yaml", check=2).stderr
        self.assertIn("is already running", err)
        self.assertIn("use ssim status or ssim stop", err)
        self.assertNotIn("cannot listen", err)
        self.ssim("stop", "twice", check=0)
        self.assertEqual(run.wait(timeout=30), 1)

    def test_a_binary_that_is_no_server_is_named_quickly(self):
        import time
        script = self.write("not-a-server", "#!/bin/sh\nexec sleep 300\n")
        os.chmod(script, 0o755)
        t0 = time.monotonic()
        err = self.run_failing(f"{{port: {free_port()}, binary: {script}}}")
        self.assertLess(time.monotonic() - t0, 20)  # not the 30 s start-up timeout
        self.assertIn(f"{script} (orchestrator.binary) runs but has not opened port", err)
        self.assertIn("is it a Redis-compatible server?", err)

    def test_a_binary_that_ends_at_once_is_named(self):
        err = self.run_failing(f"{{port: {free_port()}, binary: /bin/true}}")
        self.assertIn("/bin/true (orchestrator.binary) is not a server that keeps running", err)

    def test_missing_binary(self):
        # Known before anything starts: exit 3, one line naming it and where it was looked for.
        self.write("experiment.yaml", f"experiment: {{name: bad}}\norchestrator: {{port: {free_port()}, "
                   "binary: no-such-redis-server}\nmodels:\n  - {name: a, exe: /bin/true}\n")
        p = self.ssim("run", "experiment.yaml", check=3)
        self.assertIn("no-such-redis-server, which is not on the PATH (", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bad")))

    def test_server_dying_at_start_shows_its_log(self):
        err = self.run_failing(f"{{port: {free_port()}, config: {{maxmemory: lots}}}}")
        self.assertIn("FATAL CONFIG FILE ERROR", err)
        self.assertIn("maxmemory lots", err)


if __name__ == "__main__":
    unittest.main()
