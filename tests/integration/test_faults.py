"""Faults and hostile input on real processes: ssim never deletes what it did not create,
never hangs or loses an outcome, never runs an entity twice, never signals a process
that is not its own. One test class per class of fault."""
import json
import os
import signal
import subprocess
import time
import unittest

from ssimtest import SSIM, SsimTestCase, free_port, job_record, processes_with_env, wait_for


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def kill_quietly(pid, sig=signal.SIGKILL):
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class NeverDelete(SsimTestCase):
    ONE = "experiment:\n  name: x\n{path}models:\n  - name: data\n    exe: /bin/true\n"

    def test_refused_paths_leave_everything_in_place(self):
        home = os.path.join(self.dir, "home")
        os.makedirs(os.path.join(home, "data"))
        self.env["HOME"] = home
        for path in ["/", "~", ".", ".."]:
            with self.subTest(path=path):
                self.write("experiment.yaml", self.ONE.format(path=f"  path: \"{path}\"\n"))
                for extra in ([], ["--overwrite"]):
                    p = self.ssim("run", "experiment.yaml", *extra)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertIn("experiment.path", p.stderr)
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertTrue(os.path.isdir(os.path.join(home, "data")))
        self.assertEqual(sorted(os.listdir(self.dir)), ["experiment.yaml", "home"])

    def test_a_folder_that_is_not_an_experiment_is_never_overwritten(self):
        os.makedirs(os.path.join(self.dir, "mine/data"))
        self.write("mine/data/thesis.tex", "years of work")
        self.write("experiment.yaml", self.ONE.format(path="  path: mine\n"))
        for extra in ([], ["--overwrite"]):
            p = self.ssim("run", "experiment.yaml", *extra)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("not an ssim experiment", p.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(self.dir, "mine"))), ["data"])
        self.assertEqual(os.listdir(os.path.join(self.dir, "mine/data")), ["thesis.tex"])

    def test_overwrite_replaces_only_the_earlier_runs_directories(self):
        self.write("experiment.yaml", self.ONE.format(path=""))
        self.ssim("run", "experiment.yaml", check=0)
        self.write("x/notes.txt", "keep")
        os.makedirs(os.path.join(self.dir, "x/other"))
        # A new entity named like a folder the user made there: refused, folder intact.
        self.write("experiment.yaml", self.ONE.format(path="") + "  - name: other\n    exe: /bin/true\n")
        p = self.ssim("run", "experiment.yaml", "--overwrite")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("ssim did not create it", p.stderr)
        self.assertTrue(os.path.isdir(os.path.join(self.dir, "x/other")))
        os.rmdir(os.path.join(self.dir, "x/other"))
        self.ssim("run", "experiment.yaml", "--overwrite", check=0)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "x/notes.txt")))

    def test_overwrite_of_an_experiment_whose_database_persists_is_refused_and_leaves_it_whole(self):
        port = free_port()
        self.write("experiment.yaml", f"experiment: {{name: keep}}\norchestrator: {{port: {port}, persist: true}}\n"
                   "models:\n  - {name: m, exe: /bin/true}\n")
        self.ssim("run", "experiment.yaml", check=0)
        _, before = self.status("keep")
        self.assertEqual(before["orchestrator"]["status"], "running")
        p = self.ssim("run", "experiment.yaml", "--overwrite")
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("keep", p.stderr)         # names the experiment whose database holds the port
        self.assertIn("ssim stop", p.stderr)    # and how to end it
        # Nothing was replaced under the running database, which ssim stop still ends.
        self.assertTrue(os.path.isdir(os.path.join(self.dir, "keep/orchestrator")))
        _, after = self.status("keep")
        self.assertEqual(after["orchestrator"]["status"], "running")
        self.assertEqual(after["orchestrator"]["job_id"], before["orchestrator"]["job_id"])
        self.ssim("stop", "keep", check=0)
        _, stopped = self.status("keep")
        self.assertIn(stopped["orchestrator"]["status"], ("completed", "cancelled"))

    def test_tilde_is_home_and_a_link_loop_is_copied_as_a_link(self):
        home = os.path.join(self.dir, "home")
        os.makedirs(home)
        self.env["HOME"] = home
        os.makedirs(os.path.join(self.dir, "input/sub"))
        self.write("input/sub/a.txt", "a")
        os.symlink("..", os.path.join(self.dir, "input/sub/up"))
        self.write("experiment.yaml", "experiment:\n  name: x\n  path: ~/runs/x\nmodels:\n"
                   "  - name: m\n    exe: /bin/ls\n    args: [sub/up/sub]\n    files: {copy: [input/sub]}\n")
        self.ssim("run", "experiment.yaml", check=0)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "~")))
        run_dir = os.path.join(home, "runs/x/m")
        self.assertTrue(os.path.islink(os.path.join(run_dir, "sub/up")))
        self.assertEqual(read_text(os.path.join(run_dir, "sub/a.txt")), "a")

    def test_files_that_would_copy_the_experiment_into_itself_are_refused(self):
        self.write("experiment.yaml", "experiment:\n  name: x\n  path: inner/x\nmodels:\n"
                   "  - name: m\n    exe: /bin/true\n    files: {copy: [inner]}\n")
        os.makedirs(os.path.join(self.dir, "inner"))
        p = self.ssim("run", "experiment.yaml")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("copied into itself", p.stderr)
        self.assertEqual(os.listdir(os.path.join(self.dir, "inner")), [])


class NeverHang(SsimTestCase):
    def status_file(self, run_dir):
        return job_record(os.path.join(self.dir, run_dir))

    def test_kill_9_of_a_supervisor_loses_no_outcome(self):
        # Both models start in the same tick, so one supervisor runs both.
        self.write("experiment.yaml", "experiment:\n  name: sup\nmodels:\n"
                   "  - {name: ok, exe: /bin/sh, args: [-c, 'sleep 1.5; exit 0']}\n"
                   "  - {name: four, exe: /bin/sh, args: [-c, 'sleep 2; exit 4']}\n")
        run = self.ssim_background("run", "experiment.yaml", "--json")
        wait_for(lambda: all((self.status_file(f"sup/{n}") or {}).get("state") == "running" for n in ("ok", "four")),
                 what="both running")
        # The supervisor process ssim started (its job id), and the one that watches "ok".
        parent = int(self.manifest("sup")["entities"][0]["job_id"].split("@")[0])
        self.assertEqual(self.manifest("sup")["entities"][1]["job_id"].split("@")[0], str(parent))
        os.kill(self.status_file("sup/ok")["supervisor_pid"], signal.SIGKILL)
        os.kill(parent, signal.SIGKILL)
        out, err = run.communicate(timeout=30)
        self.assertEqual(run.returncode, 1, err)
        e = {x["name"]: x for x in json.loads(out)["entities"]}
        self.assertEqual((e["ok"]["status"], e["ok"]["exit_code"]), ("completed", 0), err)
        self.assertEqual((e["four"]["status"], e["four"]["exit_code"]), ("failed", 4), err)

    def test_a_killed_local_agent_is_replaced_and_loses_no_outcome(self):
        # One member at a time goes to the run's agent; it is killed while the first runs.
        self.write("experiment.yaml", "experiment: {name: ag, max_running: 1}\nensembles:\n"
                   "  - {name: m, exe: /bin/sh, args: [-c, 'sleep 1; exit 0'], replicas: 3}\n")
        run = self.ssim_background("run", "experiment.yaml", "--json")
        wait_for(lambda: (self.status_file("ag/m/m_0") or {}).get("state") == "running", what="m_0 running")
        agent = int(self.manifest("ag")["entities"][0]["job_id"].split("@")[0])
        with open(f"/proc/{agent}/cmdline", "rb") as f:
            self.assertIn(b"--local-agent", f.read())
        os.kill(agent, signal.SIGKILL)
        out, err = run.communicate(timeout=30)
        self.assertEqual(run.returncode, 0, err)
        e = {x["name"]: x for x in json.loads(out)["entities"]}
        for name in ("m_0", "m_1", "m_2"):
            self.assertEqual((e[name]["status"], e[name]["exit_code"]), ("completed", 0), err)
        # The later members went to a new agent, which left with the run.
        later = int(self.manifest("ag")["entities"][2]["job_id"].split("@")[0])
        self.assertNotEqual(later, agent)
        wait_for(lambda: not os.path.exists(f"/proc/{later}"), timeout=10, what="the new agent to leave")

    def small_disk(self, size):
        """A tmpfs of `size` at <dir>/disk, unmounted at the end (skips where mount is refused)."""
        disk = os.path.join(self.dir, "disk")
        os.makedirs(disk)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", disk]).returncode != 0:
            self.skipTest("cannot mount a small tmpfs here")
        self.addCleanup(lambda: subprocess.run(["umount", "-l", disk]))
        return disk

    def test_a_full_disk_ends_the_run_with_a_reason(self):
        # The member that filled the disk keeps its outcome (its final record goes over its
        # first, in the space that one holds); the one after it has no room for its record
        # (its command travels to its keeper in memory, so it runs, but its outcome cannot
        # be written down): failed, saying why. The filler's keeper stays busy with what the
        # filler detached, so `next` gets a keeper of its own, whose journal's first block
        # the full disk refuses.
        self.small_disk("512k")
        self.write("experiment.yaml", "experiment:\n  name: full\n  path: disk/full\nmodels:\n"
                   "  - {name: filler, exe: /bin/sh, args: [-c, 'until grep -qs filler ../.ssim/keepers/*; do sleep 0.01; done; "
                   "cat /dev/zero > fill 2>/dev/null; setsid sleep 60 & exit 0']}\n"
                   "  - {name: next, exe: /bin/true, after: [filler]}\n")
        p = self.ssim("run", "experiment.yaml", "--json", timeout=60)
        self.assertNotEqual(p.returncode, 0, p.stderr)
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        self.assertEqual((e["filler"]["status"], e["filler"]["exit_code"]), ("completed", 0), p.stderr)
        self.assertEqual(e["next"]["status"], "failed")
        self.assertIn("could not be written: the disk is full", e["next"]["reason"])

    def test_a_final_status_the_disk_refuses_is_an_end_with_a_reason(self):
        # Its first record gone (its keeper's journal emptied, once it holds that record) and
        # the disk full: the final one has nowhere to go. The
        # supervisor retries, then says so, and the run ends instead of waiting for ever.
        self.small_disk("512k")
        self.write("experiment.yaml", "experiment:\n  name: full\n  path: disk/full\nmodels:\n"
                   "  - {name: filler, exe: /bin/sh, args: [-c, 'until grep -qs filler ../.ssim/keepers/*; do sleep 0.01; done; "
                   "for j in ../.ssim/keepers/*; do : > $$j; done; "
                   "cat /dev/zero > fill 2>/dev/null; exit 0']}\n")
        p = self.ssim("run", "experiment.yaml", "--json", timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        self.assertEqual(e["filler"]["status"], "failed")
        self.assertIn("disk", e["filler"]["reason"])

    def test_status_on_a_full_disk_reads_and_reports(self):
        # The run is gone with an entity never started: status would keep "cancelled" in
        # the manifest, and the disk refuses it. A reader reports from memory all the same.
        disk = self.small_disk("1m")
        self.write("experiment.yaml", "experiment:\n  name: full\n  path: disk/full\nmodels:\n"
                   "  - {name: a, exe: /bin/sleep, args: ['60']}\n"
                   "  - {name: b, exe: /bin/true, after: [a]}\n")
        run = self.run_until("disk/full", "a")
        run.kill()
        run.communicate()
        subprocess.run(["sh", "-c", f"cat /dev/zero > {disk}/fill 2>/dev/null"])
        p = self.ssim("status", "disk/full", "--json")
        self.assertIn(p.returncode, (0, 1), p.stderr)
        e = {x["name"]: x for x in json.loads(p.stdout)["entities"]}
        self.assertEqual(e["b"]["status"], "cancelled")
        os.unlink(os.path.join(disk, "fill"))
        self.ssim("stop", "disk/full", check=0)

    def test_a_snapshot_that_cannot_be_saved_is_said_and_the_server_keeps_the_data(self):
        self.small_disk("2m")
        port = free_port()
        self.write("experiment.yaml", f"""
experiment: {{name: snap, path: disk/snap}}
orchestrator: {{port: {port}}}
models:
  - name: put
    exe: /usr/bin/python3
    args: [-c, "import os, numpy, ssim; ssim.Client().put_tensor('big', numpy.frombuffer(os.urandom(4000000), dtype=numpy.uint8))"]
""")
        password = lambda: read_text(os.path.join(self.dir, "disk/snap/.ssim/db_password")).strip()

        def keys():
            p = subprocess.run(["redis-cli", "-p", str(port), "-a", password(), "--no-auth-warning", "DBSIZE"],
                               capture_output=True, text=True, timeout=10)
            return p.stdout.strip()
        p = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(p.returncode, 3, p.stderr)  # the environment failed: the data is not on disk
        self.assertIn("No space left on device", p.stderr)
        self.assertIn("still runs and holds the only copy", p.stderr)
        held = keys()
        self.assertGreater(int(held or 0), 0)  # not killed: it still has the tensor
        _, e = self.status("disk/snap")
        self.assertEqual(e["orchestrator"]["status"], "running")
        # ssim stop says the same, and still does not kill it.
        p = self.ssim("stop", "disk/snap")
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("No space left on device", p.stderr)
        self.assertEqual(keys(), held)
        # The user decides to let the data go.
        p = self.ssim("stop", "disk/snap", "--no-save")
        self.assertEqual(p.returncode, 0, p.stderr)
        wait_for(lambda: keys() != held, timeout=10, what="the server to end")
        _, e = self.status("disk/snap")
        self.assertIn(e["orchestrator"]["status"], ("completed", "cancelled"))

    def test_a_full_file_system_before_the_run_is_one_plain_line(self):
        disk = self.small_disk("64k")
        os.makedirs(os.path.join(disk, "full"))
        with open(os.path.join(disk, "filler"), "wb") as f:  # fill it
            try:
                f.write(b"\0" * (1 << 20))
            except OSError:
                pass
        self.write("experiment.yaml", "experiment:\n  name: full\n  path: disk/full\nmodels:\n"
                   "  - {name: a, exe: /bin/true}\n")
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertNotIn("internal error", p.stderr)
        self.assertIn("the file system holding it is full", p.stderr)
        self.assertNotIn(".tmp.", p.stderr)  # the file the user knows, not ssim's temporary

    def test_without_home_the_history_never_goes_to_a_shared_folder(self):
        shared = "/tmp/.local/state/ssim/history"
        before = os.stat(shared).st_mtime if os.path.exists(shared) else None
        self.write("experiment.yaml", "experiment: {name: nohome}\nmodels:\n  - {name: a, exe: /bin/true}\n")
        env = {k: v for k, v in self.env.items() if k not in ("HOME", "SSIM_STATE_HOME", "XDG_STATE_HOME")}
        p = subprocess.run([SSIM, "run", "experiment.yaml"], cwd=self.dir, env=env, capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        after = os.stat(shared).st_mtime if os.path.exists(shared) else None
        self.assertEqual(before, after, "the history went to /tmp, which every user shares")

    def test_a_damaged_manifest_is_named_with_what_to_do(self):
        self.write("experiment.yaml", "experiment: {name: dmg}\nmodels:\n  - {name: a, exe: /bin/true}\n")
        self.ssim("run", "experiment.yaml", check=0)
        manifest = os.path.join(self.dir, "dmg/.ssim/manifest.json")
        with open(manifest, "r+") as f:
            text = f.read()
            f.seek(0)
            f.truncate()
            f.write(text[: len(text) // 2])  # truncated, as a full disk leaves it
        for verb in (["status", "dmg"], ["report", "dmg", "-o", "-"], ["stop", "dmg"]):
            p = self.ssim(*verb)
            self.assertEqual(p.returncode, 3, (verb, p.stderr))
            self.assertNotIn("internal error", p.stderr)
            self.assertIn(f"the manifest {manifest} is damaged", p.stderr)
            self.assertIn("--overwrite", p.stderr)

    def test_a_stopped_database_is_reported_and_ended(self):
        port = free_port()
        self.write("experiment.yaml", f"experiment:\n  name: db\norchestrator:\n  port: {port}\nmodels:\n"
                   "  - {name: work, exe: /bin/sh, args: [-c, 'sleep 4']}\n")
        run = self.ssim_background("run", "experiment.yaml")
        status = lambda: job_record(os.path.join(self.dir, "db/orchestrator")) or {}
        # "work" starts once the database has answered ssim.
        wait_for(lambda: (job_record(os.path.join(self.dir, "db/work")) or {}).get("state") == "running",
                 what="database up and work started")
        redis = status()["pid"]
        os.kill(redis, signal.SIGSTOP)
        self.addCleanup(kill_quietly, redis)
        try:
            out, err = run.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.fail("the run did not end; its log:\n" + read_text(os.path.join(self.dir, "db/.ssim/ssim.log")))
        self.assertIn("does not answer", err)
        self.assertEqual(run.returncode, 0, err)  # the entities all succeeded
        self.assertFalse(alive(redis), "the stopped redis-server survived the run")

    def test_a_kill_9_between_manifest_saves_loses_no_started_job(self):
        # The manifest is saved at most every 100 ms; here an entity starts every few ms.
        # Whatever had started when ssim run is killed must still be found (start journal).
        self.write("experiment.yaml", "experiment: {name: j, max_running: 8, oversubscribe: true}\n"
                   "ensembles:\n  - {name: e, exe: /bin/sleep, args: ['0.05'], replicas: 1000}\n")
        run = self.run_until("j", "e_20", lambda e: e["status"] != "new", "started")
        run.kill()  # somewhere between two saves: which one does not matter
        run.communicate()
        _, e = self.status("j")
        started = [n for n in e if job_record(os.path.join(self.dir, "j/e", n))]
        self.assertGreater(len(started), 20)
        lost = [n for n in started if e[n]["status"] == "new"]
        self.assertEqual(lost, [], "started, but unknown to ssim status")
        self.ssim("stop", "j", check=0)

    def test_members_that_ended_before_a_stop_stay_completed(self):
        # All three at once, whatever the cores: oversubscribe.
        self.write("experiment.yaml", "experiment:\n  name: m\n  oversubscribe: true\nensembles:\n"
                   "  - name: e\n    exe: /bin/sh\n    args: [-c, 'if [ $(i) = 0 ]; then sleep 60; else sleep 0.5; fi']\n"
                   "    params: {i: [0, 1, 2]}\n")
        run = self.run_until("m", "e_0")
        run.kill()  # nobody polls while the short members end
        run.communicate()
        for i in (1, 2):
            wait_for(lambda: (self.status_file(f"m/e/e_{i}") or {}).get("state") == "exited", what=f"e_{i} ended")
        self.ssim("stop", "m", check=0)
        _, e = self.status("m")
        self.assertEqual([e[f"e_{i}"]["status"] for i in range(3)], ["cancelled", "completed", "completed"])
        self.ssim("run", "experiment.yaml", "--resume", "--detach", check=0)
        attempts = {x["name"]: x["attempt"] for x in json.loads(self.ssim("status", "m", "--json").stdout)["entities"]}
        self.assertEqual((attempts["e_0"], attempts["e_1"], attempts["e_2"]), (2, 1, 1))
        self.ssim("stop", "m", check=0)

    def test_stop_ends_entities_before_the_database(self):
        port = free_port()
        self.write("experiment.yaml", f"experiment:\n  name: order\norchestrator:\n  port: {port}\nmodels:\n"
                   "  - {name: w, exe: /bin/sh, args: [-c, 'trap \"sleep 0.5; exit 0\" TERM; sleep 60 & wait']}\n")
        run = self.run_until("order", "w")
        self.ssim("stop", "order", check=0)
        run.communicate(timeout=30)
        entity = self.status_file("order/w")
        database = self.status_file("order/orchestrator")
        self.assertLessEqual(entity["end"], database["end"])


class NeverTwice(SsimTestCase):
    def stranger(self):
        """A process that is not the experiment's, in its own group, and its start time."""
        p = subprocess.Popen(["setsid", "sleep", "60"])
        self.addCleanup(lambda: (kill_quietly(p.pid), p.wait()))
        wait_for(lambda: os.getpgid(p.pid) == p.pid, what="stranger in its own group")
        with open(f"/proc/{p.pid}/stat") as f:
            ticks = f.read().rsplit(")", 1)[1].split()[19]
        return p, ticks

    def forge(self, status_path, pid, ticks, **extra):
        """The program's own record, written as its status file as a program could (ssim
        reads that file first): every number it holds names the stranger (both are
        world-readable in /proc)."""
        s = job_record(os.path.dirname(status_path))
        s.update(pid=pid, pid_start_ticks=ticks, supervisor_pid=pid, supervisor_start_ticks=ticks, **extra)
        with open(status_path, "w") as f:
            json.dump(s, f)

    def test_stop_never_signals_a_process_that_reused_a_pid(self):
        self.write("experiment.yaml", "experiment:\n  name: reuse\nmodels:\n  - {name: m, exe: /bin/sleep, args: ['60']}\n")
        run = self.run_until("reuse", "m")
        run.kill()
        run.communicate()
        status_path = os.path.join(self.dir, "reuse/m/.ssim-status.json")  # read before any journal
        s = job_record(os.path.join(self.dir, "reuse/m"))
        kill_quietly(s["supervisor_pid"])
        kill_quietly(-s["pid"])
        wait_for(lambda: not alive(s["pid"]), what="the program gone")
        # A stranger now holds the pid ssim recorded (as after pid reuse): same number in
        # the file, a different start time in /proc.
        stranger, _ = self.stranger()
        s["pid"] = stranger.pid
        s["supervisor_pid"] = stranger.pid
        with open(status_path, "w") as f:
            json.dump(s, f)
        self.ssim("stop", "reuse", check=0)
        self.assertTrue(alive(stranger.pid), f"ssim stop killed a process that was not its own ({stranger.poll()})")

    def test_a_status_file_forged_by_the_program_never_steers_a_signal(self):
        # The program rewrites its own status file with another process's pid and start
        # time: after a crash of the run, in a live run, and naming another host.
        for case in ("crashed run", "live run", "another host"):
            with self.subTest(case=case):
                name = case.replace(" ", "_")
                self.write("experiment.yaml", f"experiment:\n  name: {name}\nmodels:\n"
                           "  - {name: m, exe: /bin/sleep, args: ['60']}\n")
                run = self.run_until(name, "m")
                status_path = os.path.join(self.dir, name, "m/.ssim-status.json")  # read before any journal
                program = job_record(os.path.join(self.dir, name, "m"))["pid"]
                if case != "live run":
                    run.kill()
                    run.communicate()
                stranger, ticks = self.stranger()
                self.forge(status_path, stranger.pid, ticks, **({"host": "elsewhere"} if case == "another host" else {}))
                self.ssim("stop", name, check=0)
                self.assertTrue(alive(stranger.pid),
                                f"{case}: ssim stop signalled a process named by a forged file ({stranger.poll()})")
                # The experiment's own program still ended: the kernel knows it is the job's.
                wait_for(lambda: not alive(program), timeout=15, what=f"{case}: the program to end")
                run.communicate(timeout=30)

    def test_resume_refuses_while_the_earlier_run_still_runs(self):
        port = free_port()
        self.write("experiment.yaml", f"experiment:\n  name: twice\norchestrator:\n  port: {port}\nmodels:\n"
                   "  - {name: m, exe: /bin/sleep, args: ['60']}\n")
        run = self.run_until("twice", "m")
        run.kill()
        run.communicate()
        exp_id = self.manifest("twice")["id"]
        p = self.ssim("run", "experiment.yaml", "--resume")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("still running", p.stderr)
        self.assertEqual(len([pid for pid in processes_with_env("SSIM_ENTITY", "m")
                              if pid in processes_with_env("SSIM_EXPERIMENT_ID", exp_id)]), 1)
        redis = job_record(os.path.join(self.dir, "twice/orchestrator"))["pid"]
        self.ssim("stop", "twice", check=0)
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), what="nothing left")
        self.assertFalse(alive(redis), "the earlier redis-server survived ssim stop")

    def test_detached_processes_end_with_the_run_even_without_their_environment(self):
        self.write("experiment.yaml", "experiment:\n  name: det\nmodels:\n"
                   "  - name: d\n    exe: /bin/sh\n"
                   "    args: [-c, 'env -i /usr/bin/setsid /bin/sh -c \"echo $$$$ > daemon.pid; exec sleep 300\" & sleep 0.5']\n")
        self.ssim("run", "experiment.yaml", check=0)
        pid = int(read_text(os.path.join(self.dir, "det/d/daemon.pid")))
        self.addCleanup(kill_quietly, pid)
        wait_for(lambda: not alive(pid), timeout=10, what="the detached daemon to end with the run")

    def test_stop_of_one_entity_ends_what_it_detached(self):
        self.write("experiment.yaml", "experiment:\n  name: det1\nmodels:\n"
                   "  - name: d\n    exe: /bin/sh\n"
                   "    args: [-c, 'env -i /usr/bin/setsid /bin/sh -c \"echo $$$$ > daemon.pid; exec sleep 300\" & sleep 60']\n"
                   "  - {name: other, exe: /bin/sleep, args: ['60'], after: []}\n")
        run = self.run_until("det1", "d")
        pidfile = os.path.join(self.dir, "det1/d/daemon.pid")
        pid = int(wait_for(lambda: read_text(pidfile).strip(), what="daemon started"))
        self.addCleanup(kill_quietly, pid)
        self.ssim("stop", "det1", "d", check=0)
        wait_for(lambda: not alive(pid), timeout=10, what="the entity's detached daemon to end")
        self.assertEqual(self.status("det1")[1]["other"]["status"], "running")
        self.ssim("stop", "det1", check=0)
        run.communicate(timeout=30)

    def test_a_fifo_among_the_control_requests_blocks_nothing(self):
        # A FIFO (or a stranger's file) in the stop-requests folder: opened without
        # blocking and skipped, so the runner keeps serving real requests.
        self.write("experiment.yaml", "experiment:\n  name: fifo\nmodels:\n"
                   "  - {name: a, exe: /bin/sleep, args: ['300']}\n  - {name: b, exe: /bin/sleep, args: ['300']}\n")
        run = self.run_until("fifo", "a")
        folder = os.path.join(self.dir, "fifo/.ssim/stop-requests")
        os.makedirs(folder, exist_ok=True)
        os.mkfifo(os.path.join(folder, "planted.json"))
        p = self.ssim("stop", "fifo", "a", timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        wait_for(lambda: self.status("fifo")[1]["a"]["status"] == "cancelled", timeout=20, what="a stopped")
        self.assertEqual(self.status("fifo")[1]["b"]["status"], "running")
        self.ssim("stop", "fifo", timeout=30, check=0)
        self.assertEqual(run.wait(timeout=30), 1)

    def test_a_stopped_agent_is_not_left_behind_by_ssim_stop(self):
        self.write("experiment.yaml", "experiment:\n  name: stp\nmodels:\n  - {name: a, exe: /bin/sleep, args: ['300']}\n")
        run = self.run_until("stp", "a")
        keeper = job_record(os.path.join(self.dir, "stp/a"))["supervisor_pid"]  # a child of the run's local agent
        with open(f"/proc/{keeper}/stat") as f:
            agent = int(f.read().rsplit(")", 1)[1].split()[1])
        for pid in (agent, keeper):
            self.addCleanup(kill_quietly, pid)
            os.kill(pid, signal.SIGSTOP)
        p = self.ssim("stop", "stp", timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(run.wait(timeout=30), 1)
        for pid in (agent, keeper):
            wait_for(lambda: not alive(pid), timeout=20, what=f"stopped process {pid} to be continued and leave")

    def test_two_runs_of_one_file_at_once_exactly_one_runs(self):
        self.write("experiment.yaml", "experiment:\n  name: race\nmodels:\n  - {name: m, exe: /bin/sleep, args: ['0.5']}\n")
        for attempt in range(5):
            if attempt:
                subprocess.run(["rm", "-rf", os.path.join(self.dir, "race")])
            a = self.ssim_background("run", "experiment.yaml")
            b = self.ssim_background("run", "experiment.yaml")
            codes = sorted([a.wait(timeout=30), b.wait(timeout=30)])
            self.assertEqual(codes, [0, 2], (a.communicate(), b.communicate()))
            _, e = self.status()
            self.assertEqual(e["m"]["status"], "completed")


class RunDirectoryFilesAreUntrusted(SsimTestCase):
    """What a program leaves in its run directory is read as its own words, never as a
    way to read another file, to write to the terminal, or to swell every status row."""

    def test_loss_markers_are_never_followed_escaped_and_bounded(self):
        self.write("secret.txt", "THE-SECRET-LINE\n")
        secret = os.path.join(self.dir, "secret.txt")
        script = ("import os, sys\n"
                  "what = sys.argv[1]\n"
                  "if what == 'link':\n"
                  f"    os.symlink({secret!r}, 'metrics.0.lost')\n"
                  "elif what == 'escape':\n"
                  "    open('metrics.0.lost', 'w').write('\\x1b[2J\\x1b]0;owned\\x07 disk full\\n')\n"
                  "else:\n"
                  "    for r in range(5000):\n"
                  "        open(f'metrics.{r}.lost', 'w').write('no room left on the device\\n')\n"
                  "    os.mkfifo('metrics.0.ndjson')\n")
        self.write("plant.py", script)
        self.write("experiment.yaml", """
experiment: {name: planted}
models:
  - {name: link, exe: /usr/bin/python3, args: [plant.py, link], files: {copy: [plant.py]}}
  - {name: escape, exe: /usr/bin/python3, args: [plant.py, escape], files: {copy: [plant.py]}}
  - {name: many, exe: /usr/bin/python3, args: [plant.py, many], files: {copy: [plant.py]}}
""")
        p = self.ssim("run", "experiment.yaml", timeout=120)  # a FIFO among the points blocks nothing
        out = p.stdout + p.stderr
        st = self.ssim("status", "planted", check=0).stdout
        js = self.ssim("status", "planted", "--json", check=0).stdout
        log = read_text(os.path.join(self.dir, "planted/.ssim/ssim.log"))
        for text in (out, st, js, log):
            self.assertNotIn("THE-SECRET-LINE", text)
            self.assertNotIn("\x1b", text)
            self.assertNotIn("\x07", text)
        e = {x["name"]: x for x in json.loads(js)["entities"]}
        self.assertIn("disk full", e["escape"]["reason"])
        self.assertIn("and 4997 more ranks", e["many"]["reason"])
        self.assertLess(len(e["many"]["reason"]), 600, e["many"]["reason"])


class BadInputFast(SsimTestCase):
    def test_a_quote_in_a_path_that_reaches_a_batch_script_is_bad_input(self):
        self.write("experiment.yaml", "experiment:\n  name: q\n  path: 'runs/a\"b'\nmodels:\n"
                   "  - {name: m, exe: /bin/true, batch: {nodes: 1}}\n")
        for args in (["--batch", "--dry-run"], ["--batch"], []):
            for launcher in ("slurm", "pbs", "lsf"):
                with self.subTest(args=args, launcher=launcher):
                    p = self.ssim("run", "experiment.yaml", "--launcher", launcher, *args)
                    self.assertEqual(p.returncode, 2, p.stderr)
                    self.assertIn("cannot carry", p.stderr)
                    self.assertNotIn("internal error", p.stderr)
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertEqual(sorted(os.listdir(self.dir)), ["experiment.yaml"])

    def test_a_huge_file_is_refused_before_it_is_read(self):
        path = os.path.join(self.dir, "huge.yaml")
        with open(path, "w") as f:
            f.write("experiment: {name: x}\nmodels:\n")
            line = "  - {name: m%d, exe: /bin/true}\n"
            f.write("".join(line % i for i in range(1_500_000)))
        p = self.ssim("validate", "huge.yaml", timeout=10)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("too large", p.stderr)

    def test_an_expansion_bomb_is_refused_without_building_it(self):
        params = ", ".join(f"p{i}: [{','.join(str(v) for v in range(10))}]" for i in range(9))
        self.write("experiment.yaml", f"experiment: {{name: x}}\nensembles:\n  - {{name: e, exe: /bin/true, params: {{{params}}}}}\n")
        p = self.ssim("validate", "experiment.yaml", timeout=10)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("over the limit of 100000 members", p.stderr)
        self.assertEqual(os.listdir(self.dir), ["experiment.yaml"])
        # The limit is an option: lower here, so 20 members are over it.
        self.write("small.yaml", "experiment: {name: y}\nensembles:\n  - {name: e, exe: /bin/true, replicas: 20}\n")
        self.ssim("validate", "small.yaml", check=0)
        p = self.ssim("validate", "small.yaml", "--max-members", "10")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("expands to 20 members, over the limit of 10", p.stderr)

if __name__ == "__main__":
    unittest.main()


class SharedTemporaryFolders(SsimTestCase):
    """The colocated database's per-user folder in a shared /tmp, against another user
    (nobody) who got there first: refused, never used, nothing of theirs touched."""

    def setUp(self):
        super().setUp()
        self.tmp = os.path.join(self.dir, "tmp")
        os.makedirs(self.tmp)
        os.chmod(self.tmp, 0o1777)  # a shared, sticky temporary folder, as /tmp
        self.env = {k: v for k, v in self.env.items() if k != "XDG_RUNTIME_DIR"}
        self.env["TMPDIR"] = self.tmp
        self.base = os.path.join(self.tmp, f"ssim-{os.getuid()}")
        self.write("experiment.yaml", "experiment: {name: colo}\nmodels:\n"
                   "  - {name: m, exe: /bin/true, colocated_db: {}}\n")

    def refused(self, why):
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        err = self.ssim("logs", "m", "--stderr", check=0).stdout
        self.assertIn(f"refusing {self.base}: {why}", err)

    def test_a_folder_another_user_made_is_refused(self):
        os.makedirs(self.base)
        os.chmod(self.base, 0o777)
        os.chown(self.base, 65534, 65534)  # nobody's, open to all
        self.refused("it belongs to uid 65534, not to you")
        self.assertEqual(os.listdir(self.base), [])  # nothing of ours went in

    def test_a_planted_link_is_refused_and_what_it_points_at_is_left_alone(self):
        theirs = os.path.join(self.dir, "theirs")
        os.makedirs(theirs)
        with open(os.path.join(theirs, "password"), "w") as f:
            f.write("keep me")
        os.chown(theirs, 65534, 65534)
        os.symlink(theirs, self.base)
        self.refused("it is a symbolic link")
        self.assertEqual(os.listdir(theirs), ["password"])
        with open(os.path.join(theirs, "password")) as f:
            self.assertEqual(f.read(), "keep me")

    def test_our_own_folder_left_open_is_closed_and_used(self):
        os.makedirs(self.base)
        os.chmod(self.base, 0o755)
        p = self.ssim("run", "experiment.yaml", timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.stat(self.base).st_mode & 0o777, 0o700)
