"""Training metrics on real processes: Python ranks under mpirun log through
ssim.metrics, a shell script prints ssim:metric lines, a program killed with kill -9
keeps what it had flushed; ssim status shows metric columns and ssim metrics exports
every point."""
import csv
import io
import json
import os
import signal
import subprocess
import tarfile

from ssimtest import SsimTestCase

PYTHON = "/usr/bin/python3"
PYTHON_DIR = os.environ.get("SSIM_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "../../build/python"))

EXPERIMENT = """
experiment: {name: mt}
models:
  - name: train
    exe: /usr/bin/python3
    run: {ntasks: 2, mpi: mpirun}
    args: [-c, "import ssim.metrics as m\\nr = m.rank()\\nfor s in range(10): m.log(loss=1.0 / (s + 1) + r, step=s)\\nm.log('val_acc', 0.9, step=9, phase='val')"]
  - name: script
    exe: /bin/sh
    args: [-c, "echo ssim:metric loss=0.5 step=1; echo other output; echo ssim:metric loss=0.25 val_acc=0.8 step=2"]
  - name: killed
    exe: /usr/bin/python3
    args: [-c, "import os, signal, time, ssim.metrics as m\\nm.log(loss=0.7, step=1)\\ntime.sleep(2.5)\\nm.log(loss=0.1, step=2)\\nos.kill(os.getpid(), signal.SIGKILL)"]
"""


class MetricsOfQuietMembers(SsimTestCase):
    def test_members_that_left_no_metrics_are_known_and_the_others_still_read(self):
        # Readers (status -o, report, dashboard) skip what the engine found empty; a short
        # member's file, or its stdout line, is still read.
        self.write("experiment.yaml", """
experiment: {name: quiet}
ensembles:
  - {name: q, exe: /bin/true, replicas: 3}
models:
  - name: file
    exe: /bin/sh
    args: [-c, 'echo "{\\"name\\": \\"loss\\", \\"value\\": 0.5, \\"step\\": 1}" > metrics.0.ndjson']
  - {name: line, exe: /bin/sh, args: [-c, 'echo ssim:metric loss=0.25 step=2']}
""")
        self.ssim("run", "experiment.yaml", check=0, timeout=60)
        known = {e["name"]: e.get("no_metrics", False) for e in self.manifest("quiet")["entities"]}
        self.assertEqual(known, {"q_0": True, "q_1": True, "q_2": True, "file": False, "line": False})
        out = self.ssim("status", "quiet", "-o", "name,loss", check=0).stdout
        rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:]}
        self.assertEqual((rows["file"], rows["line"], rows["q_0"]), (["0.5"], ["0.25"], ["-"]))


class Metrics(SsimTestCase):
    def setUp(self):
        super().setUp()
        self.write("experiment.yaml", EXPERIMENT)
        self.ssim("run", "experiment.yaml", check=1, timeout=120)  # `killed` fails, by design

    def test_every_rank_and_the_stdout_form_are_kept_and_shown(self):
        rows = list(csv.DictReader(io.StringIO(self.ssim("metrics", "mt", "--csv", check=0).stdout)))
        train = [r for r in rows if r["entity"] == "train" and r["metric"] == "loss"]
        self.assertEqual(sorted({r["rank"] for r in train}), ["0", "1"])  # both ranks, recorded as such
        self.assertEqual(len(train), 20)
        self.assertEqual([r["value"] for r in rows if r["entity"] == "script" and r["metric"] == "loss"],
                         ["0.5", "0.25"])
        # kill -9 after a flush: the point logged more than a second before survives.
        killed = [r for r in rows if r["entity"] == "killed"]
        self.assertIn(("loss", "0.7", "1"), [(r["metric"], r["value"], r["step"]) for r in killed])
        points = json.loads(self.ssim("metrics", "mt", "train", "--json", check=0).stdout)
        self.assertEqual({p["metric"] for p in points}, {"loss", "val_acc"})
        self.assertEqual([p["phase"] for p in points if p["metric"] == "val_acc"], ["val", "val"])

    def test_status_shows_the_latest_value_as_a_column(self):
        out = self.ssim("status", "mt", "-o", "name,status,loss,val_acc", check=1).stdout
        lines = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
        self.assertEqual(lines["NAME"], ["NAME", "STATUS", "LOSS", "VAL_ACC"])
        self.assertEqual(lines["script"], ["script", "completed", "0.25", "0.8"])
        self.assertEqual(lines["train"][3], "0.9")
        # Sorted by a metric, descending: the highest validation accuracy first, no value last.
        out = self.ssim("status", "mt", "-o", "name,val_acc", "--sort", "-val_acc", check=1).stdout
        self.assertEqual([line.split()[0] for line in out.splitlines()[2:]], ["train", "script", "killed"])
        # A metric nobody reported is an error naming those that were, before any output.
        p = self.ssim("status", "mt", "-o", "name,los")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertIn("metrics reported: loss, val_acc", p.stderr)

    def test_the_python_api_reads_them_too(self):
        import os
        import sys
        sys.path.insert(0, os.environ.get("SSIM_PYTHON_DIR", os.path.join(os.path.dirname(__file__),
                                                                          "../../build/python")))
        import ssim
        from ssimtest import SSIM
        ssim.set_binary(SSIM)
        os.environ["SSIM_STATE_HOME"] = self.env["SSIM_STATE_HOME"]
        try:
            exp = ssim.Experiment.attach(os.path.join(self.dir, "mt"))
            rows = exp.metrics("script", as_frame=False)
        finally:
            del os.environ["SSIM_STATE_HOME"]
        self.assertEqual([(r["metric"], r["value"]) for r in rows], [("loss", 0.5), ("loss", 0.25), ("val_acc", 0.8)])


    def test_one_archive_holds_the_metrics_the_file_the_manifest_and_every_output(self):
        p = self.ssim("metrics", "mt", "--archive", "mt.tar", check=0)
        self.assertIn("wrote mt.tar", p.stderr)
        with tarfile.open(f"{self.dir}/mt.tar") as tar:  # checks every header's checksum
            names = set(tar.getnames())
            for name in ("mt/experiment.yaml", "mt/manifest.json", "mt/metrics.csv", "mt/train/train.out",
                         "mt/train/metrics.0.ndjson", "mt/train/metrics.1.ndjson", "mt/script/script.out",
                         "mt/killed/killed.err"):
                self.assertIn(name, names)
            rows = list(csv.DictReader(io.StringIO(tar.extractfile("mt/metrics.csv").read().decode())))
            self.assertEqual(rows, list(csv.DictReader(io.StringIO(self.ssim("metrics", "mt", "--csv", check=0).stdout))))
            self.assertIn("other output", tar.extractfile("mt/script/script.out").read().decode())
        # Nothing half-written replaces a file when the archive cannot be made; a link is refused.
        os.symlink(f"{self.dir}/mt.tar", f"{self.dir}/link.tar")
        p = self.ssim("metrics", "mt", "--archive", "link.tar")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("symbolic link", p.stderr)


class MergedStdout(SsimTestCase):
    def test_lines_run_together_by_the_launcher_are_read_or_said_never_lost_in_silence(self):
        # What Open MPI's output forwarding does to ranks' lines, written as it arrives: two
        # metric lines on one line (both read), a metric line after another rank's text
        # (read), and one cut by another rank's bytes (said, as a lost point).
        self.write("experiment.yaml", r"""
experiment: {name: merged}
models:
  - name: train
    exe: /bin/sh
    args: [-c, 'if [ "$$OMPI_COMM_WORLD_RANK" = 0 ]; then printf "ssim:metric loss=0.5 step=1 rank=0ssim:metric loss=0.4 step=1 rank=1\nepoch done ssim:metric loss=0.3 step=2 rank=0\nssim:metric loss=0.2 stssim:metric loss=0.1 step=2 rank=1\n"; fi']
    run: {ntasks: 2}
""")
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        rows = list(csv.DictReader(io.StringIO(self.ssim("metrics", "merged", "--csv", check=0).stdout)))
        self.assertEqual(sorted((r["rank"], r["step"], r["value"]) for r in rows),
                         [("0", "1", "0.5"), ("0", "2", "0.3"), ("1", "1", "0.4"), ("1", "2", "0.1")])
        e = {x["name"]: x for x in json.loads(self.ssim("status", "merged", "--json", check=0).stdout)["entities"]}
        self.assertIn("1 metric line on stdout could not be read", e["train"]["reason"])
        self.assertIn("1 metric line on stdout could not be read", p.stdout + p.stderr)


    def test_lines_printed_by_several_ranks_are_all_kept_with_the_time_they_came(self):
        # Two ranks print 300 lines each as fast as they can: Open MPI's forwarding runs some
        # of them together in train.out (6 of 384 points were lost so), and a printed line
        # had no time (issue 52). Each rank's wrapper stamps its own rank's lines as they come.
        self.write("experiment.yaml", r"""
experiment: {name: fast}
models:
  - name: train
    exe: /usr/bin/python3
    args: [-u, -c, "for s in range(300): print(f'ssim:metric loss={s / 1000} step={s}', flush=True)"]
    run: {ntasks: 2}
    goal: {metric: loss, at_least: 0.25}
""")
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        e = {x["name"]: x for x in json.loads(self.ssim("status", "fast", "--json", check=0).stdout)["entities"]}
        e = e["train"]
        points = json.loads(self.ssim("metrics", "fast", "train", "--json", check=0).stdout)
        self.assertEqual(sorted((q["rank"], q["step"]) for q in points), [(r, s) for r in (0, 1) for s in range(300)])
        # Each with the time it came, within the entity's run, in the order printed.
        for rank in (0, 1):
            times = [q["time"] for q in points if q["rank"] == rank]
            self.assertEqual(times, sorted(times))
            self.assertGreaterEqual(times[0], e["start"] - 1)
            self.assertLessEqual(times[-1], e["end"] + 1)
        self.assertNotIn("could not be read", e["reason"] or "")
        # The time to the goal is known for printed points too.
        self.assertTrue(e["goal"]["reached"], e["goal"])
        self.assertEqual(e["goal"]["step"], 250)
        self.assertGreaterEqual(e["goal"]["seconds"], 0)
        # The program's output reaches train.out unchanged by the wrapper: every byte both
        # ranks printed is there (the launcher's forwarding may cut lines into each other).
        printed = 2 * sum(len(f"ssim:metric loss={s / 1000} step={s}\n") for s in range(300))
        self.assertEqual(os.path.getsize(os.path.join(self.dir, "fast/train/train.out")), printed)


    def test_a_lone_program_s_printed_lines_get_the_time_ssim_saw_them(self):
        # A one-rank program writes straight to its .out: ssim run reads what it added about
        # once a second and stamps the metric lines in it (issue 52: a printed point had no
        # time, so no time to accuracy for the no-import route).
        self.write("experiment.yaml", r"""
experiment: {name: lone}
models:
  - name: p
    exe: /bin/sh
    args: [-c, 'for s in 1 2 3 4 5 6; do echo "ssim:metric loss=0.$$s step=$$s"; echo other; sleep 0.5; done']
    goal: {metric: loss, at_least: 0.5}
""")
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        e = {x["name"]: x for x in json.loads(self.ssim("status", "lone", "--json", check=0).stdout)["entities"]}["p"]
        points = json.loads(self.ssim("metrics", "lone", "p", "--json", check=0).stdout)
        self.assertEqual([q["step"] for q in points], [1, 2, 3, 4, 5, 6])
        times = [q["time"] for q in points]
        self.assertEqual(times, sorted(times))
        self.assertGreaterEqual(times[0], e["start"])
        self.assertLessEqual(times[-1], e["end"] + 1)
        self.assertGreater(times[-1], times[0])  # seen over the run, not all at its end
        self.assertEqual(e["goal"]["step"], 5)
        self.assertGreater(e["goal"]["seconds"], 0)


class Summary(SsimTestCase):
    def test_summary_sorted_by_a_metric_names_the_best_and_the_worst_of_each_ensemble(self):
        self.write("experiment.yaml", """
experiment: {name: sw}
ensembles:
  - name: sweep
    exe: /bin/sh
    args: [-c, "echo ssim:metric val_acc=$(acc) step=1"]
    params: {acc: ["0.5", "0.9", "0.7"]}
  - name: quiet
    exe: /bin/true
    replicas: 2
""")
        self.ssim("run", "experiment.yaml", check=0, timeout=60)
        out = self.ssim("status", "sw", "--summary", "--sort", "-val_acc", check=0).stdout
        self.assertIn("sweep by -val_acc: best sweep_1 0.9 (acc=0.9); worst sweep_0 0.5 (acc=0.5) (3 with val_acc)",
                      out)
        self.assertNotIn("quiet by", out)  # no value there: nothing to rank
        # Ascending: the smallest first.
        out = self.ssim("status", "sw", "--summary", "--sort", "val_acc", check=0).stdout
        self.assertIn("best sweep_0 0.5 (acc=0.5); worst sweep_1 0.9", out)
        p = self.ssim("status", "sw", "--summary", "--sort", "-val_ac")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("metrics reported: val_acc", p.stderr)


GOALS = """
experiment: {name: goals}
ensembles:
  # Accuracy climbs 0.1 a step from `start`, for a minute unless stopped.
  - name: stopped
    exe: /usr/bin/python3
    args: [-c, "import time, ssim.metrics as m\\nacc = $(start)\\nfor s in range(600):\\n    m.log(val_acc=acc, step=s)\\n    acc += 0.1\\n    time.sleep(0.1)"]
    params: {start: ["0.15", "0.45"]}
    goal: {metric: val_acc, at_least: 0.8, stop_on_goal: true}
  # Without stop_on_goal the goal is only recorded; `never` does not reach it.
  - name: kept
    exe: /bin/sh
    args: [-c, "for a in $(values); do echo ssim:metric loss=$$a step=$$a; done"]
    params: {values: ["3 2 1", "9 8 7"]}
    goal: {metric: loss, at_most: 2}
  # Ends with exit 0 on SIGTERM (a trap): stopped on its goal all the same, and says so.
  - name: trapping
    exe: /bin/sh
    args: [-c, "trap 'exit 0' TERM; i=0; while true; do echo ssim:metric acc=$$i step=$$i; i=$$((i + 1)); sleep 0.2; done"]
    replicas: 1
    goal: {metric: acc, at_least: 3, stop_on_goal: true}
  # Waits on a member that fails: never starts, so its goal is neither reached nor missed.
  - name: fails
    exe: /bin/false
    replicas: 1
  - name: blocked
    exe: /bin/true
    after: [fails]
    replicas: 1
    goal: {metric: loss, at_most: 2}
"""


class Goals(SsimTestCase):
    def test_time_to_goal_is_recorded_and_stop_on_goal_stops_the_member_as_completed(self):
        self.write("experiment.yaml", GOALS)
        run = self.ssim("run", "experiment.yaml", check=1, timeout=120)  # fails_0 fails
        self.assertIn("reached its goal", run.stdout + run.stderr)
        _, entities = self.status()
        for name, step in (("stopped_0", 7), ("stopped_1", 4)):
            e = entities[name]
            self.assertEqual(e["status"], "completed", e)
            self.assertEqual(e["exit_code"], 0, e)
            self.assertLess(e["elapsed"], 30, e)  # stopped, not run for its minute
            self.assertTrue(e["goal"]["reached"], e)
            self.assertEqual(e["goal"]["step"], step, e)
            self.assertGreaterEqual(e["goal"]["value"], 0.8 - 1e-9, e)
            self.assertGreaterEqual(e["goal"]["seconds"], 0, e)
            self.assertIn("stopped on reaching its goal", e["reason"])
        self.assertEqual(entities["trapping_0"]["status"], "completed", entities["trapping_0"])
        self.assertIn("stopped on reaching its goal", entities["trapping_0"]["reason"])
        # The table's note says so too (it was empty for every completed member).
        notes = self.ssim("status", "goals", "-o", "name,note", check=1).stdout
        self.assertRegex(notes, r"\ntrapping_0 +stopped on reaching its goal")
        self.assertEqual(entities["kept_0"]["goal"]["step"], 2)
        self.assertFalse(entities["kept_1"]["goal"]["reached"])
        table = self.ssim("status", "goals", "-o", "name,goal_step,goal", "--sort", "goal_step", check=1).stdout
        lines = [line.split()[0] for line in table.splitlines()[2:] if line.split()[0] in ("kept_0", "stopped_1",
                                                                                             "stopped_0", "kept_1")]
        self.assertEqual(lines, ["kept_0", "stopped_1", "stopped_0", "kept_1"])  # by step; not reached last
        self.assertIn("loss <= 2: reached at step 2 (2)", table)
        self.assertIn("loss <= 2: not reached", table)
        blocked = self.ssim("status", "goals", "-o", "name,goal", check=1).stdout
        self.assertIn("loss <= 2: not started", [line for line in blocked.splitlines() if "blocked_0" in line][0])
        # The report: a chart per metric and group, and the members compared with their goal.
        self.ssim("report", "goals", "-o", "report.html", check=0)
        with open(f"{self.dir}/report.html") as f:
            html = f.read()
        metrics = html[html.index('<section id="metrics">'):]
        metrics = metrics[:metrics.index("</section>")]
        self.assertIn("<h3>stopped</h3>", metrics)
        self.assertIn('"metric":"val_acc"', metrics)  # the data curves.js draws (test_report.Curves)
        self.assertIn('"goals":{"val_acc":{"at_least":true,"target":0.8}}', metrics)
        self.assertIn("last val_acc against start", metrics)
        self.assertIn("reached at step 4", metrics)  # stopped_1's row
        self.assertIn("not reached", metrics)        # kept_1's


BOUNDED = """
experiment: {name: bounded}
models:
  # 20,000 points of each metric in about 2 s; the accuracy meets the goal once, at step 3717.
  - name: long
    exe: /usr/bin/python3
    args: [-c, "import time, ssim.metrics as m\\nfor s in range(20000):\\n    m.log(loss=1.0 / (s + 1), acc=0.95 if s == 3717 else 0.5, step=s)\\n    if s % 1000 == 0: time.sleep(0.1)"]
    goal: {metric: acc, at_least: 0.9}
  # Every point its own metric (so none may go), written for 7 s while ssim replaces the
  # file under the writer.
  - name: writer
    exe: /usr/bin/python3
    args: [-c, "import time, ssim.metrics as m\\nfor i in range(700):\\n    m.log('p%d' % i, i, step=i)\\n    time.sleep(0.01)"]
"""


class Bounded(SsimTestCase):
    def test_a_file_past_the_limit_is_thinned_keeping_the_latest_and_the_goal_and_losing_no_write(self):
        self.write("experiment.yaml", BOUNDED)
        self.env["SSIM_METRICS_LIMIT"] = "16384"
        self.ssim("run", "experiment.yaml", check=0, timeout=120)
        self.assertLessEqual(os.path.getsize(f"{self.dir}/bounded/long/metrics.0.ndjson"), 8192)
        points = json.loads(self.ssim("metrics", "bounded", "long", "--json", check=0).stdout)
        loss = [p["step"] for p in points if p["metric"] == "loss"]
        self.assertLess(len(loss), 200)  # thinned from 20,000
        self.assertEqual((loss[0], loss[-1]), (0, 19999))  # the first and the latest kept
        _, entities = self.status()
        self.assertEqual(entities["long"]["goal"]["step"], 3717)  # the time to the goal survives
        out = self.ssim("status", "bounded", "-o", "name,loss", check=0).stdout
        self.assertIn("5e-05", out)  # 1 / 20000, the latest loss
        # The writer's file was replaced while it wrote (and after) and kept every point.
        with open(f"{self.dir}/bounded/.ssim/ssim.log") as f:
            thinned = [line for line in f if "writer:" in line and "thinned" in line]
        self.assertGreaterEqual(len(thinned), 2, thinned)
        written = json.loads(self.ssim("metrics", "bounded", "writer", "--json", check=0).stdout)
        self.assertEqual(sorted(p["step"] for p in written), list(range(700)))


SIXTEEN_RANKS = """
experiment: {name: crowd}
models:
  # Sixteen writers at once, one file each, thinned by ssim while they write.
  - name: ranks
    exe: /bin/sh
    args: [-c, "for r in $$(seq 0 15); do RANK=$$r /usr/bin/python3 -c \\"$$WRITER\\" & done; wait"]
    env:
      WRITER: "import time, ssim.metrics as m\\nfor s in range(4000):\\n    m.log(loss=1.0 / (s + 1), step=s)\\n    if s % 400 == 0: time.sleep(0.1)"
"""


class SixteenWritersThinned(SsimTestCase):
    def test_every_rank_keeps_its_first_and_latest_point_with_no_torn_line(self):
        self.write("experiment.yaml", SIXTEEN_RANKS)
        self.env["SSIM_METRICS_LIMIT"] = "16384"
        self.ssim("run", "experiment.yaml", check=0, timeout=180)
        points = json.loads(self.ssim("metrics", "crowd", "ranks", "--json", check=0).stdout)
        by_rank = {}
        for p in points:
            by_rank.setdefault(p["rank"], []).append(p["step"])
        self.assertEqual(sorted(by_rank), list(range(16)))
        thinned = 0
        for rank, steps in by_rank.items():
            self.assertEqual((min(steps), max(steps)), (0, 3999), rank)  # the first and the latest kept
            thinned += len(steps) < 4000
            with open(os.path.join(self.dir, f"crowd/ranks/metrics.{rank}.ndjson")) as f:
                text = f.read()
            self.assertTrue(text.endswith("\n"), f"rank {rank}: a torn last line")
            self.assertLessEqual(len(text), 16384, rank)
        self.assertEqual(thinned, 16)  # each file went past the limit and was thinned
        out = self.ssim("status", "crowd", "-o", "name,loss", check=0).stdout
        self.assertIn("0.00025", out)  # 1 / 4000: every rank's latest, their mean


class BadPoints(SsimTestCase):
    """A bad step or epoch is refused at the call; the writer lives on and loses nothing else."""

    def test_bad_arguments_are_refused_at_the_call_and_later_points_are_kept(self):
        script = ("import ssim.metrics as m\n"
                  "for bad in ('x', float('nan'), float('inf'), 1.5, -1, True):\n"
                  "    for key in ('step', 'epoch'):\n"
                  "        try:\n"
                  "            m.log('loss', 1.0, **{key: bad})\n"
                  "        except (TypeError, ValueError):\n"
                  "            pass\n"
                  "        else:\n"
                  "            raise SystemExit(f'{key}={bad!r} was taken')\n"
                  "m.log('loss', 0.5, step=3.0, epoch=1)\n"
                  "import time; time.sleep(1.3)\n"  # one flush by the writer thread
                  "m.log('loss', 0.25, step=4)\n")
        self.write("experiment.yaml", "experiment: {name: bad}\nmodels:\n"
                   f"  - {{name: t, exe: /usr/bin/python3, args: [-c, {json.dumps(script)}]}}\n")
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(self.dir, "bad/t/metrics.0.ndjson")) as f:
            points = [json.loads(line) for line in f]
        self.assertEqual([(x["value"], x["step"]) for x in points], [(0.5, 3), (0.25, 4)])


class NoPointLost(SsimTestCase):
    """Every point logged reaches the file, or the process says which did not."""

    def python(self, script, *extra_env, **kw):
        env = dict(self.env, RANK="0", SSIM_RUN_DIR=self.dir, PYTHONPATH=PYTHON_DIR)
        for pair in extra_env:
            env.update(pair)
        return subprocess.Popen([PYTHON, "-c", script], cwd=self.dir, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, **kw)

    def lines(self):
        with open(os.path.join(self.dir, "metrics.0.ndjson")) as f:
            text = f.read()
        self.assertTrue(text == "" or text.endswith("\n"), "a torn last line")
        return [json.loads(line) for line in text.splitlines()]

    def test_sixteen_writers_ending_normally_lose_no_point(self):
        # Each logs for about a second, so that the writer thread is often writing (and
        # waiting for the others' lock) at the moment the interpreter ends.
        script = ("import time, ssim.metrics as m\n"
                  "m.log('loss', 0.0, step=0)\n"
                  "t, i = time.time(), 1\n"
                  "while time.time() - t < 1.0:\n"
                  "    m.log('loss', 1.0 / (i + 1), step=i)\n"
                  "    i += 1\n"
                  "print(i)\n")
        procs = [self.python(script) for _ in range(16)]
        logged = 0
        for p in procs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 0, err)
            logged += int(out)
        self.assertEqual(len(self.lines()), logged)

    def test_sigterm_writes_every_point_then_ends_the_process_as_sigterm_does(self):
        script = ("import sys, time, ssim.metrics as m\n"
                  "for i in range(5000):\n"
                  "    m.log('loss', 1.0, step=i)\n"
                  "print('ready', flush=True)\n"
                  "time.sleep(60)\n")
        p = self.python(script)
        self.assertEqual(p.stdout.readline().strip(), "ready")
        p.terminate()
        p.communicate(timeout=30)
        self.assertEqual(p.returncode, -signal.SIGTERM)
        self.assertEqual(len(self.lines()), 5000)

    def test_a_link_another_user_planted_is_not_followed_and_that_is_said(self):
        if os.getuid() != 0:
            self.skipTest("needs root to make a link owned by another user")
        target = self.write("precious.txt", "mine\n")
        link = os.path.join(self.dir, "metrics.0.ndjson")
        os.symlink(target, link)
        os.lchown(link, 65534, 65534)
        p = self.python("import ssim.metrics as m\nm.log('loss', 1.0, step=1)\n")
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        with open(target) as f:
            self.assertEqual(f.read(), "mine\n")
        self.assertIn("1 points could not be written", err)
        self.assertIn("link another user made", err)

    def test_a_full_disk_tears_no_line_keeps_what_fits_and_says_what_did_not(self):
        disk = os.path.join(self.dir, "disk")
        os.makedirs(disk)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk]).returncode != 0:
            self.skipTest("cannot mount a small tmpfs here")
        self.addCleanup(lambda: subprocess.run(["umount", "-l", disk]))
        script = ("import ssim.metrics as m\n"
                  "for i in range(20000):\n"
                  "    m.log('loss', 0.123456789, step=i)\n"
                  "    if i % 500 == 499:\n"
                  "        try:\n"
                  "            m.flush()\n"
                  "        except OSError:\n"
                  "            pass\n")
        p = self.python(script, {"SSIM_RUN_DIR": disk})
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, err)
        with open(os.path.join(disk, "metrics.0.ndjson")) as f:
            text = f.read()
        self.assertTrue(text.endswith("\n"), "a torn last line")
        kept = [json.loads(line) for line in text.splitlines()]
        self.assertGreater(len(kept), 0)
        self.assertEqual([x["step"] for x in kept], list(range(len(kept))))  # in order, none skipped
        self.assertIn(f"{20000 - len(kept)} points could not be written", err)
        with open(os.path.join(disk, "metrics.0.lost")) as f:  # for ssim to say
            self.assertIn(f"{20000 - len(kept)} points could not be written", f.read())

    def test_points_the_file_system_refuses_during_a_run_are_said_in_the_note_the_log_and_the_output(self):
        # A file-size limit: the file system refuses writes past 32 KiB (EFBIG), as a full
        # disk refuses them.
        self.write("train.py", "import ssim.metrics as m\nfor i in range(5000):\n    m.log('loss', 0.5, step=i)\n")
        self.write("experiment.yaml", """
experiment: {name: lost}
models:
  - name: train
    exe: /bin/sh
    args: [-c, 'ulimit -f 64; exec /usr/bin/python3 train.py']
    files: {copy: [train.py]}
""")
        p = self.ssim("run", "experiment.yaml")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stderr, r"train: metric points lost: rank 0: \d+ points could not be written")
        _, status = self.status("lost")
        self.assertRegex(status["train"]["reason"], r"^metric points lost \(rank 0: \d+ points could not be written")
        self.assertEqual(status["train"]["status"], "completed")
        self.assertIn("metric points lost (rank 0:", self.ssim("status", "lost").stdout)  # the NOTE column
        with open(os.path.join(self.dir, "lost/.ssim/ssim.log")) as f:
            self.assertIn("train: metric points lost", f.read())
