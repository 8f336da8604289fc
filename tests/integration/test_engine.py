"""End-to-end tests of ssim run / status / stop / logs on the local launcher, with real
child processes."""
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

from ssimtest import SSIM, SsimTestCase, processes_with_env, wait_for

BASIC = """
experiment:
  name: basic
models:
  - name: hello
    exe: /bin/echo
    args: ["hello from $(entity)"]
  - name: fails
    exe: /bin/sh
    args: [-c, "echo boom >&2; exit 3"]
  - name: after_fail
    exe: /bin/true
    after: [fails]
ensembles:
  - name: sweep
    exe: /bin/sh
    args: [-c, "echo $$SSIM_ENTITY x=$(x)"]
    params: {x: [1, 2, 3]}
  - name: seg
    exe: /bin/sh
    args: [-c, "kill -SEGV $$$$"]
"""


class RunOutcomes(SsimTestCase):
    def test_success_failure_signal_and_cancelled_dependent(self):
        self.write("experiment.yaml", BASIC)
        p = self.ssim("run", "experiment.yaml", "--json")
        self.assertEqual(p.returncode, 1, p.stderr)
        doc = json.loads(p.stdout)
        e = {x["name"]: x for x in doc["entities"]}
        self.assertEqual(e["hello"]["status"], "completed")
        self.assertEqual(e["hello"]["exit_code"], 0)
        self.assertEqual(e["fails"]["status"], "failed")
        self.assertEqual(e["fails"]["exit_code"], 3)
        self.assertEqual(e["after_fail"]["status"], "cancelled")
        self.assertEqual(e["after_fail"]["job_id"], "")
        self.assertEqual(e["seg_0"]["status"], "failed")
        self.assertEqual(e["seg_0"]["signal"], "SIGSEGV")
        for i in range(3):
            self.assertEqual(e[f"sweep_{i}"]["status"], "completed")
        # Output went to the run directory, and ssim logs finds it.
        self.assertEqual(self.ssim("logs", "sweep_1", check=0).stdout, "sweep_1 x=2\n")
        self.assertEqual(self.ssim("logs", "basic", "fails", "--stderr", check=0).stdout, "boom\n")
        with open(os.path.join(self.dir, "basic/hello/hello.out")) as f:
            self.assertEqual(f.read(), "hello from hello\n")
        # status agrees with run, from the manifest and the supervisors' files.
        _, s = self.status()
        self.assertEqual(s["fails"]["exit_code"], 3)
        self.assertEqual(s["seg_0"]["signal"], "SIGSEGV")

    def test_all_completed_exits_zero_with_table(self):
        self.write("experiment.yaml", "experiment: {name: ok}\nmodels:\n  - {name: a, exe: /bin/true}\n")
        p = self.ssim("run", "experiment.yaml", check=0)
        self.assertRegex(p.stdout, r"a\s+model\s+\d+\s+completed\s+0")

    def test_a_big_run_ends_with_a_summary_on_a_terminal(self):
        import pty
        self.write("experiment.yaml", """
experiment: {name: big}
ensembles:
  - {name: sim, exe: /bin/sh, args: [-c, 'if [ $(n) = 7 ] || [ $(n) = 23 ]; then echo "diverged at n=$(n)" >&2; exit 4; fi'],
     params: {n: [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34]}}
""")
        master, slave = pty.openpty()
        p = subprocess.Popen([os.environ.get("SSIM", SSIM), "run", "experiment.yaml"], cwd=self.dir, env=self.env,
                             stdout=slave, stderr=subprocess.DEVNULL)
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: ssim ended
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        self.assertEqual(p.wait(timeout=60), 1)
        text = out.decode().replace("\r", "")
        self.assertLess(len(text.splitlines()), 20, text)  # not one row per member
        self.assertIn("sim    35 total: 33 completed, 2 failed", text)
        self.assertIn("  sim_7  exit code 4 | diverged at n=7  [n=7]", text)
        self.assertIn(f"every failure: ssim status {self.dir}/big --filter failed", text)
        self.assertIn(f"the whole run: ssim report {self.dir}/big -o big.html", text)
        # Piped, as scripts read it: the whole table.
        self.write("again.yaml", open(os.path.join(self.dir, "experiment.yaml")).read().replace("name: big", "name: again"))
        self.assertEqual(len(self.ssim("run", "again.yaml", check=1).stdout.splitlines()), 36)
        # Piped past 1,000 entities: the summary, not a row each (a million rows is 55 MB).
        self.write("many.yaml", "experiment: {name: many}\nensembles:\n  - {name: m, exe: /bin/true, replicas: 1001}\n")
        out = self.ssim("run", "many.yaml", timeout=300).stdout
        self.assertLess(len(out.splitlines()), 20, out[:2000])
        self.assertRegex(out, r"m +1001 total: 1001 completed")

    def test_stop_says_where_they_stand_as_a_run_s_end_does(self):
        # A few entities: the table, a row each.
        self.write("experiment.yaml", "experiment: {name: few}\n"
                   "ensembles:\n  - {name: f, exe: /bin/sleep, args: ['100'], replicas: 3}\n")
        run = self.run_until("few", "f_0")
        out = self.ssim("stop", "experiment.yaml", check=0).stdout
        self.assertEqual([line.split()[0] for line in out.splitlines()], ["NAME", "f_0", "f_1", "f_2"], out)
        run.wait(timeout=60)
        # Past 1,000 piped: the summary, not a row each (stopping a million members once printed 55 MB).
        self.write("many.yaml", "experiment: {name: many}\n"
                   "ensembles:\n  - {name: m, exe: /bin/sleep, args: ['100'], replicas: 1001}\n")
        many = self.ssim_background("run", "many.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "many", ".ssim/manifest.json")), what="manifest")
        wait_for(lambda: self.status("many.yaml")[1]["m_0"]["status"] == "running", what="m_0 running")
        out = self.ssim("stop", "many.yaml", check=0).stdout
        self.assertLess(len(out.splitlines()), 20, out[:2000])
        self.assertRegex(out, r"m +1001 total: 1001 cancelled")
        many.wait(timeout=60)

    def test_a_member_costs_its_folder_and_its_two_output_files(self):
        # What ssim knows of a member lives in the experiment's .ssim (its launch, its
        # keeper's record), read alike by this run and by `ssim status` in another process;
        # a retry's record, not the failed attempt's, is the member's.
        self.write("experiment.yaml", "experiment: {name: three}\nensembles:\n"
                   "  - {name: m, exe: /bin/sh, args: [-c, 'exit $(code)'], params: {code: [0, 4]}, replicas: 10}\n"
                   "models:\n  - {name: flaky, exe: /bin/sh, retries: 1,\n"
                   "     args: [-c, 'if [ \"$$SSIM_ATTEMPT\" = 1 ]; then exit 3; fi; echo second']}\n")
        p = self.ssim("run", "experiment.yaml", "--json", check=1)
        said = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        _, s = self.status("three")
        self.assertEqual(len([n for n in s if n.startswith("m_")]), 20)
        for name, e in s.items():
            if not name.startswith("m_"):
                continue
            code = int(e["params"]["code"])
            self.assertEqual((e["status"], e["exit_code"]), ("completed" if code == 0 else "failed", code), name)
            self.assertEqual(said[name]["exit_code"], code, name)
            self.assertEqual(sorted(os.listdir(e["run_dir"])), [name + ".err", name + ".out"], name)
        flaky = s["flaky"]
        self.assertEqual((flaky["status"], flaky["exit_code"], flaky["attempt"]), ("completed", 0, 2), flaky)
        self.assertEqual([a["exit_code"] for a in flaky["earlier_attempts"]], [3])
        self.assertEqual(sorted(os.listdir(flaky["run_dir"])), ["flaky.err", "flaky.err.1", "flaky.out", "flaky.out.1"])

    def test_run_regardless_sees_which_inputs_succeeded(self):
        self.write("experiment.yaml", """
experiment: {name: anyway}
ensembles:
  - {name: sim, exe: /bin/sh, args: [-c, 'exit $$(( $(n) == 2 ? 3 : 0 ))'], params: {n: [0, 1, 2, 3]}}
models:
  - name: analysis
    exe: /bin/sh
    args: [-c, 'echo "ok=$$SSIM_AFTER_OK failed=$$SSIM_AFTER_FAILED"; cat after.json']
    after_any: [sim]
  - {name: strict, exe: /bin/true, after: [sim]}
""")
        self.ssim("run", "experiment.yaml", check=1)
        _, s = self.status()
        self.assertEqual(s["analysis"]["status"], "completed")
        self.assertEqual(s["strict"]["status"], "cancelled")  # after: still means "all succeeded"
        out = self.ssim("logs", "analysis", check=0).stdout
        self.assertEqual(out.splitlines()[0], "ok=sim_0,sim_1,sim_3 failed=sim_2")
        doc = json.loads(out[out.index("{"):])
        self.assertEqual((doc["sim_2"]["status"], doc["sim_2"]["exit_code"]), ("failed", 3))
        self.assertTrue(all(e["end"] <= s["analysis"]["start"] for n, e in s.items() if n.startswith("sim_")))

    def test_after_one_member_of_an_ensemble(self):
        self.write("experiment.yaml", """
experiment: {name: one}
ensembles:
  - {name: sim, exe: /bin/sh, args: [-c, 'exit $$(( $(n) == 0 ? 5 : 0 ))'], params: {n: [0, 1]}}
models:
  - {name: uses_1, exe: /bin/true, after: [sim_1]}
  - {name: uses_0, exe: /bin/true, after: [sim_0]}
""")
        self.ssim("run", "experiment.yaml", check=1)
        _, s = self.status()
        self.assertEqual((s["uses_1"]["status"], s["uses_0"]["status"]), ("completed", "cancelled"))
        self.write("bad.yaml", "experiment: {name: bad}\nensembles:\n  - {name: sim, exe: /bin/true, replicas: 2}\n"
                   "models:\n  - {name: m, exe: /bin/true, after: [sim_2]}\n")
        self.assertIn('unknown entity "sim_2"', self.ssim("validate", "bad.yaml", check=2).stderr)

    def test_after_each_chains_members_one_to_one(self):
        self.write("experiment.yaml", """
experiment: {name: chains}
ensembles:
  - {name: sim, exe: /bin/sh, args: [-c, 'sleep 0.$(n); [ $(n) != 2 ] && echo $(n) > ../../out.$(n)'], params: {n: [1, 2, 3]}}
  - {name: post, exe: /bin/sh, args: [-c, 'cat ../../out.$(n)'], params: {n: [1, 2, 3]}, after_each: [sim]}
""")
        self.ssim("run", "experiment.yaml", check=1)
        _, s = self.status()
        self.assertEqual([s[f"post_{i}"]["status"] for i in range(3)], ["completed", "cancelled", "completed"])
        self.assertEqual(s["post_1"]["reason"], "not started: after sim_1 failed")
        for i in (0, 2):
            self.assertGreaterEqual(s[f"post_{i}"]["start"], s[f"sim_{i}"]["end"])
        self.assertEqual(self.ssim("logs", "post_2", check=0).stdout, "3\n")
        # Ensembles that do not expand alike are refused with the place to fix.
        self.write("bad.yaml", """
experiment: {name: bad}
ensembles:
  - {name: sim, exe: /bin/true, params: {n: [1, 2, 3]}}
  - {name: post, exe: /bin/true, params: {n: [3, 2, 1]}, after_each: [sim]}
""")
        p = self.ssim("validate", "bad.yaml", check=2)
        self.assertIn("bad.yaml:5:71: ensembles[1].after_each[0]: post_0 has n=3 but sim_0 has n=1", p.stderr)

    def test_a_stream_that_packing_would_serialise_is_warned_about(self):
        body = """
ensembles:
  - {name: producer, exe: /bin/true, replicas: 2}
models:
  - {name: trainer, exe: /bin/true, incoming: [producer]%s}
"""
        self.write("a.yaml", "experiment: {name: a, max_running: 2}" + body % "")
        err = self.ssim("run", "a.yaml", check=0).stderr
        self.assertIn("ssim: warning: trainer reads from producer (incoming:) while they run, but "
                      "experiment.max_running is 2 and they are 3", err)
        self.write("b.yaml", "experiment: {name: b}" + body % ", run: {cpus_per_task: 4096}")
        err = self.ssim("run", "b.yaml", check=0).stderr
        self.assertRegex(err, r"trainer reads from producer .* together they need 4098 CPUs and this machine has \d+")
        # Waiting for them (after:) or oversubscribing is no stream to break: no warning.
        self.write("c.yaml", "experiment: {name: c, max_running: 2}" + body % ", after: [producer]")
        self.assertNotIn("warning", self.ssim("run", "c.yaml", check=0).stderr)
        self.write("d.yaml", "experiment: {name: d, oversubscribe: true}" + body % ", run: {cpus_per_task: 4096}")
        self.assertNotIn("warning", self.ssim("run", "d.yaml", check=0).stderr)

    def test_after_chain_runs_in_order(self):
        self.write("experiment.yaml", """
experiment: {name: chain}
models:
  - {name: c, exe: /bin/sh, args: [-c, "test -f ../b/done && touch done"], after: [b]}
  - {name: b, exe: /bin/sh, args: [-c, "test -f ../a/done && sleep 0.1 && touch done"], after: [a]}
  - {name: a, exe: /bin/sh, args: [-c, "sleep 0.1 && touch done"]}
""")
        self.ssim("run", "experiment.yaml", check=0)
        m = self.manifest("chain")
        e = {x["name"]: x for x in m["entities"]}
        self.assertGreaterEqual(e["b"]["start"], e["a"]["end"])
        self.assertGreaterEqual(e["c"]["start"], e["b"]["end"])

    def test_missing_program_is_refused_before_anything_starts(self):
        self.write("experiment.yaml", "experiment: {name: nope}\nensembles:\n"
                   "  - {name: a, exe: no-such-program, replicas: 50}\n")
        for verb in ("validate", "run"):
            p = self.ssim(verb, "experiment.yaml", check=2)
            self.assertEqual(p.stderr.count("no-such-program"), 1, p.stderr)  # once, not per member
            self.assertIn('experiment.yaml:3:20: ensembles[0].exe: no program "no-such-program" on the PATH', p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "nope")))
        # A typo of a program on the PATH gets the name it was meant to be.
        self.write("typo.yaml", "experiment: {name: typo}\nmodels:\n  - {name: m, exe: pyhton3}\n")
        p = self.ssim("validate", "typo.yaml", check=2)
        self.assertIn('no program "pyhton3" on the PATH (did you mean python3?)', p.stderr)
        # A program an earlier step builds, or one setup: provides, is not refused.
        self.write("later.yaml", "experiment: {name: later}\nmodels:\n"
                   "  - {name: build, exe: /bin/sh, args: [-c, 'printf \"#!/bin/sh\\nexit 0\\n\" > ../made; chmod +x ../made']}\n"
                   "  - {name: use, exe: ./later/made, after: [build]}\n"
                   "  - {name: mod, exe: from-a-module, setup: ['true']}\n")
        p = self.ssim("run", "later.yaml", check=1)
        _, s = self.status("later.yaml")
        self.assertEqual(s["use"]["status"], "completed", p.stderr)
        self.assertEqual(s["mod"]["exit_code"], 127)  # it really was missing: a failure of its own
        with open(os.path.join(self.dir, "later/mod/mod.err")) as f:  # said as the user wrote it
            self.assertIn('ssim: exe "from-a-module" is not on the PATH the setup lines leave', f.read())
        self.assertIn('| ssim: exe "from-a-module" is not on the PATH', p.stderr)

    def test_a_program_another_user_could_replace_is_named_with_a_warning(self):
        shared = os.path.join(self.dir, "shared")
        os.makedirs(shared)
        os.chmod(shared, 0o777)  # a group folder anyone can write, without the sticky bit
        shutil.copy("/bin/true", os.path.join(shared, "sim"))
        self.write("experiment.yaml", "experiment: {name: w}\nensembles:\n"
                   "  - {name: a, exe: ./shared/sim, replicas: 20}\n  - {name: b, exe: true, replicas: 2}\n")
        for verb in ("validate", "run"):
            p = self.ssim(verb, "experiment.yaml", check=0)  # said, not refused
            self.assertEqual(p.stderr.count("warning"), 1, p.stderr)  # once for all members, none for true
            self.assertIn(f"experiment.yaml:3:20: ensembles[0].exe: warning: {shared}/sim will run, and another user "
                          f"could replace it: its folder {shared} can be written by every user (mode 777)", p.stderr)
        os.chmod(shared, 0o1777)  # the sticky bit: no one else can rename over it
        self.assertNotIn("warning", self.ssim("validate", "experiment.yaml", check=0).stderr)

    def test_an_earlier_attempt_that_failed_in_a_setup_line_keeps_its_note(self):
        self.write("experiment.yaml", "experiment: {name: rt}\nmodels:\n  - {name: m, exe: /bin/true, retries: 1, "
                   "setup: ['test -e flag || { touch flag; echo no flag yet >&2; false; }']}\n")
        self.ssim("run", "experiment.yaml", check=0)
        _, s = self.status()
        self.assertEqual(s["m"]["status"], "completed")
        self.assertEqual(s["m"]["earlier_attempts"][0]["reason"],
                         "setup line 1 failed: test -e flag || { touch flag; echo no flag yet >&2; false; } (exit 1): "
                         "no flag yet")

    def test_resume_reruns_only_failed_and_dependents(self):
        self.write("experiment.yaml", """
experiment: {name: res}
models:
  - {name: last, exe: /bin/true, after: [flaky]}
ensembles:
  - name: flaky
    exe: /bin/sh
    args: [-c, "test $(i) = 0 || test -f $(run_dir)/../../go"]
    params: {i: [0, 1]}
""")
        self.ssim("run", "experiment.yaml", check=1)
        _, first = self.status()
        self.assertEqual(first["flaky_1"]["status"], "failed")
        self.assertEqual(first["last"]["status"], "cancelled")
        self.write("res/go", "")
        self.ssim("run", "experiment.yaml", "--resume", check=0)
        _, second = self.status()
        self.assertEqual(second["flaky_0"]["job_id"], first["flaky_0"]["job_id"])
        self.assertEqual(second["flaky_0"]["attempt"], 1)
        self.assertEqual(second["flaky_1"]["attempt"], 2)
        self.assertEqual(second["flaky_1"]["status"], "completed")
        self.assertEqual(second["last"]["status"], "completed")
        self.assertTrue(os.path.exists(os.path.join(self.dir, "res/go")))

    def test_existing_experiment_refused_then_overwritten(self):
        self.write("experiment.yaml", "experiment: {name: ow}\nmodels:\n  - {name: a, exe: /bin/true}\n")
        self.ssim("run", "experiment.yaml", check=0)
        p = self.ssim("run", "experiment.yaml", check=2)
        self.assertIn("already exists", p.stderr)
        self.ssim("run", "experiment.yaml", "--overwrite", check=0)


LONG = """
experiment: {name: long}
models:
  - {name: quick, exe: /bin/true}
  - {name: sleeper, exe: /bin/sleep, args: ["1.5"]}
  - {name: forever, exe: /bin/sh, args: [-c, "sleep 300 & sleep 300; wait"]}
  - {name: later, exe: /bin/true, after: [sleeper]}
"""


class NamesThatHelp(SsimTestCase):
    def test_a_mistyped_or_ensemble_name_gets_a_hint_and_a_stopped_database_a_warning(self):
        self.write("experiment.yaml", "experiment: {name: h}\norchestrator: {port: auto}\nensembles:\n"
                   "  - {name: run, exe: /bin/sh, args: [-c, 'echo ssim:metric val_acc=0.5 step=1'], replicas: 3}\n")
        self.ssim("run", "experiment.yaml", check=0)
        for args, hint in ((["logs", "h", "run"], "run is an ensemble of 3 members (run_0, run_1, run_2)"),
                           (["logs", "h", "rn_1"], "did you mean run_1?"),
                           (["stop", "h", "runn"], "did you mean run?"),
                           (["metrics", "h", "rn_2"], "did you mean run_2?"),
                           (["status", "h", "-o", "name,val_accuracy"], "did you mean val_acc?")):
            with self.subTest(args=args):
                p = self.ssim(*args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(hint, p.stderr)
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        p = self.ssim("env", "h", check=0)
        self.assertIn("export SSDB=", p.stdout)
        self.assertIn("the database of h is not running (", p.stderr)
        # An experiment without a database says that, not "not yet".
        self.write("none.yaml", "experiment: {name: none}\nmodels:\n  - {name: m, exe: /bin/true}\n")
        self.ssim("run", "none.yaml", check=0)
        p = self.ssim("env", "none", check=2)
        self.assertIn("experiment none has no database (its file has no orchestrator:)", p.stderr)


class ParametersAsColumns(SsimTestCase):
    def test_a_parameter_is_a_status_column_and_a_sort_key(self):
        self.write("experiment.yaml", "experiment: {name: p}\nensembles:\n"
                   "  - {name: s, exe: /bin/true, params: {workers: [16, 2, 4]}}\n")
        self.ssim("run", "experiment.yaml", check=0)
        p = self.ssim("status", "p", "-o", "name,workers", "--sort", "workers", check=0)
        rows = [line.split() for line in p.stdout.splitlines()[2:]]
        self.assertEqual(rows, [["s_1", "2"], ["s_2", "4"], ["s_0", "16"]])
        p = self.ssim("status", "p", "-o", "name,wrkers")
        self.assertEqual(p.returncode, 2)
        self.assertIn("did you mean workers?", p.stderr)


class JsonEverywhere(SsimTestCase):
    """validate, stop and logs answer in JSON as status and run do."""

    def test_validate_json_for_a_good_and_a_bad_file(self):
        self.write("good.yaml", "experiment: {name: j}\nmodels:\n  - {name: a, exe: /bin/true}\n")
        self.write("bad.yaml", "experiment: {name: j}\nmodels:\n  - {name: a, exe: /bin/true, colour: red}\n")
        good = json.loads(self.ssim("validate", "good.yaml", "--json", check=0).stdout)
        self.assertEqual((good["ok"], good["entities"], good["experiment"], good["orchestrator"]), (True, 1, "j", False))
        p = self.ssim("validate", "bad.yaml", "--json", check=2)
        bad = json.loads(p.stdout)
        self.assertEqual((bad["ok"], bad["exit_code"]), (False, 2))
        self.assertRegex(bad["error"], r"^bad\.yaml:3:\d+: .*colour")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "j")))

    def test_stop_and_logs_json(self):
        self.write("experiment.yaml", """
experiment: {name: sj}
models:
  - {name: talk, exe: /bin/sh, args: [-c, "printf 'caf\\\\303\\\\251 \\\\377 done'"]}
  - {name: hold, exe: /bin/sleep, args: ["60"]}
""")
        run = self.run_until("sj", "hold")
        wait_for(lambda: self.status()[1]["talk"]["status"] == "completed", what="talk to complete")
        logs = json.loads(self.ssim("logs", "sj", "talk", "--json", check=0).stdout)
        self.assertEqual((logs["entity"], logs["stream"]), ("talk", "out"))
        self.assertEqual(logs["data"], "caf\u00e9 \ufffd done")
        stopped = json.loads(self.ssim("stop", "sj", "--json", check=0).stdout)
        states = {e["name"]: e["status"] for e in stopped["entities"]}
        self.assertEqual(states["hold"], "cancelled")
        self.assertEqual(run.wait(timeout=30), 1)


class Survival(SsimTestCase):
    def test_kill_9_of_run_then_status_is_exact_and_stop_leaves_nothing(self):
        self.write("experiment.yaml", LONG)
        run = self.run_until("long", "forever")
        run.kill()
        run.wait()
        # sleeper ends after ssim run died: status must still see it complete.
        wait_for(lambda: self.status()[1]["sleeper"]["status"] == "completed", what="sleeper completed")
        doc, s = self.status()
        self.assertIsNone(doc["runner"])
        self.assertEqual(s["quick"]["status"], "completed")
        self.assertEqual(s["sleeper"]["exit_code"], 0)
        self.assertEqual(s["forever"]["status"], "running")
        self.assertEqual(s["later"]["status"], "cancelled")  # nobody is left to start it
        exp_id = doc["id"]
        self.assertTrue(processes_with_env("SSIM_EXPERIMENT_ID", exp_id))
        p = self.ssim("stop", "long", check=0)
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", exp_id), [])
        _, s = self.status()
        self.assertEqual(s["forever"]["status"], "cancelled")
        self.assertEqual(s["quick"]["status"], "completed")
        # The dead run's lock is free again: --resume takes it over and reruns the rest.
        self.write("experiment.yaml", LONG.replace('"sleep 300 & sleep 300; wait"', "true"))
        self.ssim("run", "experiment.yaml", "--resume", check=0)
        _, s = self.status()
        self.assertEqual(s["forever"]["attempt"], 2)
        self.assertEqual(s["later"]["status"], "completed")

    def test_ctrl_c_cancels_everything_within_5s(self):
        self.write("experiment.yaml", LONG)
        run = self.run_until("long", "forever")
        exp_id = self.manifest("long")["id"]
        t0 = time.monotonic()
        run.send_signal(signal.SIGINT)
        rc = run.wait(timeout=10)
        self.assertLess(time.monotonic() - t0, 5.0)
        self.assertEqual(rc, 1)
        doc, s = self.status()
        self.assertEqual(s["forever"]["status"], "cancelled")
        self.assertEqual(s["sleeper"]["status"], "cancelled")
        self.assertEqual(s["later"]["status"], "cancelled")
        self.assertEqual(s["quick"]["status"], "completed")
        self.assertEqual(processes_with_env("SSIM_EXPERIMENT_ID", exp_id), [])

    def test_one_stop_gives_one_reason(self):
        # Members that end on SIGTERM within the grace period, members that need SIGKILL and
        # members that never started: one ssim stop, one reason ("stopped by ssim stop"),
        # where a plain SIGTERM to the run says "interrupted by SIGTERM".
        self.write("experiment.yaml", "experiment: {name: one, oversubscribe: true, max_running: 16}\nensembles:\n"
                   "  - {name: quick, exe: /bin/sleep, args: ['60'], params: {i: [1, 2, 3, 4, 5, 6, 7, 8]}, strategy: step}\n"
                   "  - name: stubborn\n    exe: /bin/sh\n    args: [-c, \"trap '' TERM; sleep 60 & wait; wait\"]\n"
                   "    params: {j: [1, 2, 3, 4, 5, 6, 7, 8]}\n    strategy: step\n"
                   "  - {name: waiting, exe: /bin/true, after: [quick], params: {k: [1, 2]}, strategy: step}\n")
        run = self.run_until("one", "stubborn_7")
        self.ssim("stop", "one", check=0)
        run.communicate(timeout=60)
        _, s = self.status()
        reasons = {(e["status"], e["reason"]) for e in s.values()}
        self.assertEqual(reasons, {("cancelled", "stopped by ssim stop"),
                                   ("cancelled", "stopped by ssim stop before it started")}, reasons)

    def test_second_run_is_refused_while_first_runs(self):
        self.write("experiment.yaml", LONG)
        run = self.run_until("long", "forever")
        for extra in ([], ["--overwrite"], ["--resume"]):
            p = self.ssim("run", "experiment.yaml", *extra, check=2)
            self.assertIn("already running", p.stderr)
            self.assertIn(f"pid {run.pid}", p.stderr)
        self.ssim("stop", check=0)
        self.assertEqual(run.wait(timeout=15), 1)

    def test_detach_returns_and_monitor_keeps_manifest_current(self):
        self.write("experiment.yaml", """
experiment: {name: det}
models:
  - {name: a, exe: /bin/sleep, args: ["0.5"]}
  - {name: b, exe: /bin/true, after: [a]}
""")
        p = self.ssim("run", "experiment.yaml", "--detach", check=0)
        self.assertIn("background", p.stderr)
        wait_for(lambda: self.manifest("det")["finished"] > 0, what="monitor to finish")
        m = {e["name"]: e for e in self.manifest("det")["entities"]}
        self.assertEqual(m["a"]["status"], "completed")
        self.assertEqual(m["b"]["status"], "completed")  # started by the monitor

    def test_stop_one_entity_while_run_continues(self):
        self.write("experiment.yaml", """
experiment: {name: part}
models:
  - {name: victim, exe: /bin/sleep, args: ["300"]}
  - {name: worker, exe: /bin/sleep, args: ["0.5"]}
""")
        run = self.run_until("part", "victim")
        self.ssim("stop", "part", "victim", check=0)
        self.assertEqual(run.wait(timeout=20), 1)
        _, s = self.status()
        self.assertEqual(s["victim"]["status"], "cancelled")
        self.assertEqual(s["worker"]["status"], "completed")

    def stop_pending_members(self, detach):
        # 12 members, 2 at a time: stopping the ensemble while most wait must leave every
        # one of them cancelled, never started later, by the run or by its monitor.
        self.write("experiment.yaml", """
experiment: {name: steer, max_running: 2}
ensembles:
  - {name: sweep, exe: /bin/sleep, args: ["300"], replicas: 12}
models:
  - {name: other, exe: /bin/sleep, args: ["1"]}
  - {name: one, exe: /bin/sleep, args: ["300"], after: [other]}
""")
        if detach:
            self.ssim("run", "experiment.yaml", "--detach", check=0)
            run = None
        else:
            run = self.ssim_background("run", "experiment.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "steer/.ssim/manifest.json")), what="manifest")
        wait_for(lambda: sum(e["status"] == "running" for e in self.status()[1].values()) >= 2, what="two running")
        # A member that has not started, alone, then the whole ensemble.
        p = self.ssim("stop", "steer", "one", check=0)
        self.assertIn("one", p.stdout)
        self.assertEqual(self.status()[1]["one"]["status"], "cancelled")
        self.ssim("stop", "steer", "sweep", check=0)
        _, s = self.status()
        self.assertEqual({s[f"sweep_{i}"]["status"] for i in range(12)}, {"cancelled"}, s)
        # The run ends once `other` has: a member it started after the stop would hold it
        # (sleep 300) and this would time out.
        wait_for(lambda: self.manifest("steer")["finished"] > 0, timeout=20, what="the run to end")
        if run:
            self.assertEqual(run.wait(timeout=20), 1)
        _, s = self.status()
        self.assertEqual(s["other"]["status"], "completed")
        never = [n for n, e in s.items() if n.startswith("sweep_") and not e["job_id"]]
        self.assertTrue(never, "some members were stopped before they started")
        for n in never + ["one"]:
            self.assertIn("before it started", s[n]["reason"])
        self.assertEqual({s[f"sweep_{i}"]["status"] for i in range(12)} | {s["one"]["status"]}, {"cancelled"})

    def test_readers_never_see_or_write_an_older_state(self):
        import threading
        rank = {"new": 0, "pending": 1, "running": 2, "completed": 3, "failed": 3, "cancelled": 3}
        for round_ in range(3):
            name = f"race{round_}"
            self.write(f"{name}.yaml", f"experiment: {{name: {name}}}\n"
                       "ensembles:\n  - {name: m, exe: /bin/true, replicas: 300}\n")
            run = self.ssim_background("run", f"{name}.yaml")
            wait_for(lambda: os.path.exists(os.path.join(self.dir, name, ".ssim/manifest.json")), what="manifest")
            backwards, done = [], threading.Event()

            def reader():
                seen = {}
                while not done.is_set():
                    p = subprocess.run([SSIM, "status", name, "--json"], cwd=self.dir, env=self.env,
                                       capture_output=True, text=True, timeout=30)
                    if p.returncode not in (0, 1):
                        continue
                    for e in json.loads(p.stdout)["entities"]:
                        before = seen.get(e["name"], "new")
                        if rank[e["status"]] < rank[before]:
                            backwards.append((e["name"], before, e["status"]))
                        seen[e["name"]] = e["status"]
            readers = [threading.Thread(target=reader) for _ in range(3)]
            for t in readers:
                t.start()
            try:
                self.assertEqual(run.wait(timeout=120), 0)
            finally:
                done.set()
                for t in readers:
                    t.join()
            self.assertEqual(backwards, [])
            final = {e["name"]: e for e in self.manifest(name)["entities"]}
            wrong = {n: (e["status"], e["reason"]) for n, e in final.items() if e["status"] != "completed"}
            self.assertEqual(wrong, {})

    def test_stop_ends_a_retry_chain(self):
        self.write("experiment.yaml", """
experiment: {name: chain}
models:
  - {name: flaky, exe: /bin/sh, args: [-c, 'sleep 0.2; exit 1'], retries: 100}
""")
        run = self.ssim_background("run", "experiment.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "chain/.ssim/manifest.json")), what="manifest")
        wait_for(lambda: self.status()[1]["flaky"]["attempt"] >= 3, timeout=30, what="a few attempts")
        self.ssim("stop", "chain", "flaky", check=0)
        # Stopped between attempts or during one: no attempt after the stop, the run ends.
        self.assertEqual(run.wait(timeout=20), 1)
        _, s = self.status()
        self.assertEqual(s["flaky"]["status"], "cancelled")
        attempts = s["flaky"]["attempt"]
        self.assertLess(attempts, 20)

    def test_device_variables_that_say_nothing_are_refused(self):
        self.write("experiment.yaml", "experiment: {name: dev}\nmodels:\n  - {name: a, exe: /bin/true}\n")
        for var, value in [("SSIM_CPUS", v) for v in ("0", "-1", "abc", "1e9", "4abc", "1.5")] + \
                          [("SSIM_GPUS", v) for v in ("abc", "0,x", "-1")]:
            env = dict(self.env, **{var: value})
            for verb in ("validate", "run"):
                p = subprocess.run([SSIM, verb, "experiment.yaml"], cwd=self.dir, env=env, capture_output=True,
                                   text=True, timeout=30)
                self.assertEqual(p.returncode, 2, (var, value, verb, p.stderr))
                self.assertIn(f"{var}={value}:", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "dev")))
        env = dict(self.env, SSIM_CPUS="3", SSIM_GPUS="0,1,GPU-8a1f2c3d-1111-2222-3333-444455556666")
        self.assertEqual(subprocess.run([SSIM, "validate", "experiment.yaml"], cwd=self.dir, env=env,
                                        capture_output=True, timeout=30).returncode, 0)

    def test_stop_an_ensemble_and_a_pending_member_keeps_them_stopped(self):
        self.stop_pending_members(detach=False)

    def test_stop_an_ensemble_of_a_detached_run_keeps_them_stopped(self):
        self.stop_pending_members(detach=True)

    def test_no_zombie_supervisors_while_a_long_model_runs(self):
        self.write("experiment.yaml", """
experiment: {name: reap}
ensembles:
  - {name: short, exe: /bin/true, replicas: 40}
models:
  - {name: long, exe: /bin/sleep, args: ["300"]}
""")
        run = self.ssim_background("run", "experiment.yaml")
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "reap/.ssim/manifest.json")), what="manifest")
        wait_for(lambda: all(e["status"] == "completed" for n, e in self.status()[1].items() if n != "long"),
                 timeout=60, what="the short members to complete")

        def zombies():
            out = []
            for pid in os.listdir("/proc"):
                try:
                    with open(f"/proc/{pid}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except (OSError, ValueError):
                    continue
                if fields[0] == "Z" and int(fields[1]) == run.pid:
                    out.append(int(pid))
            return out
        wait_for(lambda: not zombies(), timeout=5, what="no <defunct> child left under ssim run")
        # The long model runs on (it may have taken its core only as the last short one
        # ended, and be pending for a moment).
        wait_for(lambda: self.status()[1]["long"]["status"] == "running", timeout=10, what="long to be running")
        self.assertFalse(zombies())

    def test_a_program_gets_only_its_three_streams(self):
        # ssim's log, the supervisors' /dev/null and whatever the calling shell left open
        # (this test passes a pipe end in) are not the program's.
        self.write("experiment.yaml", "experiment: {name: fds}\nmodels:\n"
                   "  - {name: m, exe: /bin/ls, args: [-1, /proc/self/fd]}\n")
        read_end, write_end = os.pipe()
        self.addCleanup(os.close, read_end)
        self.addCleanup(os.close, write_end)
        p = subprocess.run([SSIM, "run", "experiment.yaml"], cwd=self.dir, env=self.env, capture_output=True,
                           text=True, timeout=60, pass_fds=(write_end,))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.dir, "fds/m/m.out")) as f:
            fds = sorted(int(x) for x in f.read().split())
        self.assertEqual(fds, [0, 1, 2, 3], "3 is ls's own listing of the folder")

    def test_status_exit_code_is_a_gate(self):
        self.write("experiment.yaml", "experiment: {name: gate}\nmodels:\n  - {name: a, exe: /bin/true}\n")
        self.ssim("run", "experiment.yaml", check=0)
        self.ssim("status", "gate", check=0)
        self.write("bad.yaml", "experiment: {name: gate2}\nmodels:\n  - {name: a, exe: /bin/false}\n")
        self.ssim("run", "bad.yaml", check=1)
        self.ssim("status", "gate2", check=1)
        self.ssim("status", "gate2", "--json", check=1)

    def test_logs_follow_prints_until_the_entity_ends(self):
        self.write("experiment.yaml", """
experiment: {name: fol}
models:
  - {name: talker, exe: /bin/sh, args: [-c, "for i in 1 2 3; do echo line $$i; sleep 0.2; done"]}
""")
        self.ssim("run", "experiment.yaml", "--detach", check=0)
        p = self.ssim("logs", "talker", "--follow", timeout=20, check=0)
        self.assertEqual(p.stdout, "line 1\nline 2\nline 3\n")


class Mpi(SsimTestCase):
    def test_mpirun_ranks_on_the_local_launcher(self):
        self.write("experiment.yaml", """
experiment: {name: mpi}
models:
  - name: ranks
    exe: /bin/sh
    args: [-c, "echo rank $$OMPI_COMM_WORLD_RANK of $$OMPI_COMM_WORLD_SIZE"]
    run: {ntasks: 3, mpi: mpirun}
""")
        self.ssim("run", "experiment.yaml", check=0)
        out = self.ssim("logs", "ranks", check=0).stdout
        self.assertEqual(sorted(out.splitlines()), ["rank 0 of 3", "rank 1 of 3", "rank 2 of 3"])

    def test_a_failing_rank_speaks_for_itself_not_mpirun(self):
        self.write("experiment.yaml", """
experiment: {name: cfl}
models:
  - name: solver
    exe: /bin/sh
    args: [-c, 'if [ "$$OMPI_COMM_WORLD_RANK" = 1 ]; then echo "ValueError: rank 1: CFL condition violated" >&2; exit 3; fi; sleep 1']
    run: {ntasks: 2, mpi: mpirun}
""")
        p = self.ssim("run", "experiment.yaml", check=1)
        line = [l for l in p.stderr.splitlines() if l.startswith("ssim: solver failed")]
        self.assertEqual(len(line), 1, p.stderr)
        # The rank that failed first, with its own line (docs/distributed.md).
        self.assertIn("| rank 1 failed first (exit 3, on ", line[0])
        # Rank 0, ended by mpirun, may have had no time to record its end (SIGKILL).
        self.assertRegex(line[0], r"\): ValueError: rank 1: CFL condition violated(; rank 0 ended after rank 1 failed)?  \(")
        err = open(os.path.join(self.dir, "cfl/solver/solver.err")).read()
        self.assertIn("-----", err)  # mpirun's banner is there, after the rank's line
        self.assertIn("ValueError: rank 1: CFL condition violated", self.ssim("status", check=1).stdout)
        _, s = self.status()
        self.assertRegex(s["solver"]["last_error"],
                         r"^rank 1 failed first \(exit 3, on [^)]+\): ValueError: rank 1: CFL condition violated"
                         r"(; rank 0 ended after rank 1 failed)?$")
        self.ssim("report", "cfl", "-o", "r.html", check=0)
        with open(os.path.join(self.dir, "r.html")) as f:
            html = f.read()
        tail = html[html.index("ValueError: rank 1"):][:400]
        self.assertNotIn("mpirun detected", tail)


if __name__ == "__main__":
    unittest.main()
