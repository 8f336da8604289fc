"""Resources as HPC users expect them (issue #15), on the local launcher with real
processes: setup lines before every step, run.time enforced, retries."""
import json
import os
import time
import unittest

from ssimtest import SsimTestCase


def read(path):
    with open(path) as f:
        return f.read()


class SetupLines(SsimTestCase):
    def test_setup_lines_reach_the_program_and_arguments_stay_whole(self):
        self.write("experiment.yaml", """
experiment:
  name: setup
  setup: ["export GREETING=hello", "PATH=$PWD/tools:$PATH"]
models:
  - name: m
    exe: /bin/sh
    args: [-c, 'printf "%s|%s|%s\\n" "$GREETING" "$1" "$2"', sh, "two  spaces", "$(entity); rm -rf /"]
""")
        self.ssim("run", "experiment.yaml", check=0)
        self.assertEqual(self.ssim("logs", "m", check=0).stdout, "hello|two  spaces|m; rm -rf /\n")
        dry = self.ssim("run", "experiment.yaml", "--dry-run", check=0).stdout
        self.assertIn("/bin/sh -c 'export GREETING=hello", dry)


class TimeLimit(SsimTestCase):
    def test_run_time_ends_a_program_that_runs_too_long(self):
        # One ignores SIGTERM and needs the SIGKILL after the grace period.
        self.write("experiment.yaml", """
experiment: {name: limit}
models:
  - {name: slow, exe: /bin/sleep, args: ["60"], run: {time: "0:01"}}
  - {name: stubborn, exe: /bin/sh, args: [-c, "trap '' TERM; sleep 60 & while :; do wait; done"], run: {time: "0:01"}}
  - {name: quick, exe: /bin/true, run: {time: "0:30"}}
""")
        t0 = time.monotonic()
        p = self.ssim("run", "experiment.yaml", "--json", timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        for name in ("slow", "stubborn"):
            self.assertEqual(e[name]["status"], "failed")
            self.assertEqual(e[name]["reason"], "time limit (run.time) reached")
        self.assertEqual(e["stubborn"]["signal"], "SIGKILL")
        self.assertEqual(e["quick"]["status"], "completed")
        self.assertLess(time.monotonic() - t0, 55)  # not the programs' own 60 s


class Throttle(SsimTestCase):
    def test_max_running_bounds_how_many_run_at_once(self):
        # Each member records how many members run beside it (marker files).
        self.write("experiment.yaml", """
experiment: {name: thr, max_running: 2}
ensembles:
  - name: e
    exe: /bin/sh
    args: [-c, 'touch ../running.$(replica); sleep 0.3; ls ../ | grep -c "^running" > seen; rm ../running.$(replica)']
    replicas: 6
""")
        self.ssim("run", "experiment.yaml", check=0, timeout=60)
        seen = [int(read(os.path.join(self.dir, f"thr/e/e_{i}/seen"))) for i in range(6)]
        self.assertLessEqual(max(seen), 2, seen)
        self.assertEqual(max(seen), 2, seen)  # and the two slots were used


class Gpus(SsimTestCase):
    """No GPU needed: SSIM_GPUS gives ssim a fake device list, and the programs report
    what CUDA_VISIBLE_DEVICES they were given."""

    def test_each_entity_and_rank_gets_its_own_devices_and_waits_for_them(self):
        self.env["SSIM_GPUS"] = "0,1,2"
        self.write("experiment.yaml", """
experiment: {name: gpu}
models:
  - {name: a, exe: /bin/sh, args: [-c, 'echo $$CUDA_VISIBLE_DEVICES $$ROCR_VISIBLE_DEVICES; sleep 0.5'], run: {gpus_per_task: 1}}
  - {name: b, exe: /bin/sh, args: [-c, 'echo $$CUDA_VISIBLE_DEVICES; sleep 0.5'], run: {gpus_per_task: 1}}
  - name: ranks
    exe: /bin/sh
    args: [-c, 'echo $$OMPI_COMM_WORLD_LOCAL_RANK $$CUDA_VISIBLE_DEVICES > rank.$$OMPI_COMM_WORLD_LOCAL_RANK']
    run: {ntasks: 2, gpus_per_task: 1, mpi: mpirun}
  - {name: cpu, exe: /bin/sh, args: [-c, 'echo "[$${CUDA_VISIBLE_DEVICES-unset}]"']}
""")
        p = self.ssim("run", "experiment.yaml", "--json", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        a = self.ssim("logs", "a", check=0).stdout.split()
        b = self.ssim("logs", "b", check=0).stdout.split()
        self.assertEqual(a[0], a[1])  # CUDA and ROCm see the same device
        self.assertNotEqual(a[0], b[0])
        ranks = [read(os.path.join(self.dir, f"gpu/ranks/rank.{r}")).split() for r in (0, 1)]
        self.assertEqual([r[0] for r in ranks], ["0", "1"])
        self.assertEqual(len({r[1] for r in ranks}), 2, ranks)  # one device each
        self.assertEqual(self.ssim("logs", "cpu", check=0).stdout.strip(), "[unset]")
        # Three devices, four asked for: "ranks" waited until a or b gave theirs back.
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        self.assertGreaterEqual(e["ranks"]["start"], min(e["a"]["end"], e["b"]["end"]) - 0.05)

    def test_more_gpus_than_there_are_is_refused_before_anything_starts(self):
        self.env["SSIM_GPUS"] = "0,1"
        self.write("experiment.yaml", "experiment: {name: toomany}\nmodels:\n"
                   "  - {name: t, exe: /bin/true, run: {ntasks: 3, gpus_per_task: 1, mpi: mpirun}}\n")
        p = self.ssim("run", "experiment.yaml")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("asks for 3 GPU(s); this machine offers 2 (SSIM_GPUS=0,1)", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "toomany")))


class Retries(SsimTestCase):
    def test_a_failed_entity_is_retried_and_each_attempt_recorded(self):
        # Fails twice, then succeeds: attempt 3 of 4 allowed. The other never succeeds.
        self.write("experiment.yaml", """
experiment: {name: retry}
models:
  - name: flaky
    exe: /bin/sh
    args: [-c, 'n=$$(cat count 2>/dev/null || echo 0); echo $$((n + 1)) > count; [ $$n -ge 2 ]']
    retries: 3
  - {name: broken, exe: /bin/sh, args: [-c, "exit 7"], retries: 1}
  - {name: later, exe: /bin/true, after: [flaky]}
""")
        p = self.ssim("run", "experiment.yaml", "--json", timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        self.assertEqual((e["flaky"]["status"], e["flaky"]["attempt"]), ("completed", 3))
        self.assertEqual([a["exit_code"] for a in e["flaky"]["earlier_attempts"]], [1, 1])
        self.assertEqual((e["broken"]["status"], e["broken"]["attempt"], e["broken"]["exit_code"]), ("failed", 2, 7))
        self.assertEqual(len(e["broken"]["earlier_attempts"]), 1)
        self.assertEqual(e["later"]["status"], "completed")


if __name__ == "__main__":
    unittest.main()
