"""Seeing an experiment. ssim report: the HTML file opened in a real browser
(Debian's headless chromium): every entity is in the DOM, the failure shows its stderr,
the page renders to a screenshot that is not blank; a running experiment gives a
snapshot. ssim status's filters and formats, and what ssim run says at a failure and
at the end."""
import json
import stat
import threading
import urllib.error
import urllib.parse
import urllib.request
import os
import re
import shutil
import struct
import subprocess
import unittest
import zlib

from ssimtest import SSIM, SsimTestCase, free_port, wait_for

CHROMIUM = shutil.which("chromium")

SWEEP = """
experiment: {name: sweep}
models:
  - {name: prep, exe: /bin/sh, args: [-c, "echo prepared"]}
ensembles:
  - name: sim
    after: [prep]
    params: {n: [1, 2, 3], mode: [fast, slow]}
    exe: /bin/sh
    args: [-c, 'test "$SSIM_PARAM_mode-$SSIM_PARAM_n" = slow-3 && { echo "boom <b>n=3</b>" >&2; exit 5; }; true']
"""


def chromium(*args):
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1200,1600", *args], capture_output=True, timeout=120)
    return p


def distinct_bytes_of_png(path):
    """How many distinct byte values the decompressed image data holds: a blank page
    has a handful (filter bytes and white), a drawn one dozens."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    i, idat = 8, b""
    while i < len(data):
        length, kind = struct.unpack(">I4s", data[i:i + 8])
        if kind == b"IDAT":
            idat += data[i + 8:i + 8 + length]
        i += 12 + length
    return len(set(zlib.decompress(idat)))


def drawn_runs(dom):
    """What curves.js drew: {metric: {run: (legend label, points)}}."""
    charts = {}
    for metric, body in re.findall(r'<svg class="curve"[^>]*data-metric="([^"]+)"[^>]*>(.*?)</svg>', dom, re.S):
        charts[metric] = {run: (label, int(count)) for run, label, count in
                          re.findall(r'<g data-run="([^"]+)" data-label="([^"]*)" data-count="(\d+)">', body)}
    return charts


SWEPT = """
experiment: {name: swept}
ensembles:
  - name: train
    exe: /bin/sh
    # Two ranks each, the second a little worse; a port that is the same for every member.
    args: [-c, 'for s in 1 2 3 4 5 6; do for r in 0 1; do echo "ssim:metric loss=$$(( 100 / ($(workers) * s) + r )) step=$$s rank=$$r"; done; done']
    params: {workers: [16, 2, 8, 4], port: [6000]}
    goal: {metric: loss, at_most: 5}
"""


class Curves(SsimTestCase):
    """The report's training curves, drawn by the browser as a user sees them."""

    def test_a_sweep_is_a_line_per_run_by_its_parameter_with_ranks_as_a_band_and_the_goal(self):
        self.assertIsNotNone(CHROMIUM, "needs Debian's chromium (scripts/install-deps.sh installs it)")
        self.write("experiment.yaml", SWEPT)
        self.ssim("run", "experiment.yaml", check=0)  # a goal missed is no failure
        page = os.path.join(self.dir, "report.html")
        self.ssim("report", "swept", "-o", page)
        dom = chromium("--dump-dom", "file://" + page).stdout.decode()
        runs = drawn_runs(dom)["loss"]
        # One line per run, named by the parameter that differs (not the port), six steps each.
        self.assertEqual(runs, {"train_0": ("workers=16", 6), "train_1": ("workers=2", 6), "train_2": ("workers=8", 6),
                                "train_3": ("workers=4", 6)})
        # The legend in the parameter's order; ranks folded into a mean with a band.
        legend = re.findall(r'<span class="legend-item"[^>]*><i [^>]*></i>([^<]+)</span>', dom)
        self.assertEqual(legend[:4], ["workers=2", "workers=4", "workers=8", "workers=16"])
        self.assertEqual(len(re.findall(r'<path [^>]*class="band"', dom)), 4)
        self.assertIn("mean of the ranks, band from min to max", dom)
        self.assertRegex(dom, r'<line [^>]*class="goal"')
        self.assertIn("goal \u2264 5", dom)
        # No chart of the last loss against the port, which every member has the same.
        self.assertNotIn("against port", dom)
        self.assertIn("last loss against workers", dom)
        # The table's last values are the ranks' mean at the last step, as `ssim status` says.
        rows = dict(re.findall(r"<tr><td>(train_\d)</td>(.*?)</tr>", dom))
        table = self.ssim("status", "swept", "-o", "name,loss").stdout
        for member, last in [("train_0", "1.5"), ("train_1", "8.5")]:
            self.assertIn(f"<td>{last}</td>", rows[member])
            self.assertRegex(table, rf"\n{member} +{last}\n")
        shot = os.path.join(self.dir, "curves.png")
        chromium("--window-size=1200,3000", "--screenshot=" + shot, "file://" + page)
        self.assertGreater(distinct_bytes_of_png(shot), 20)
        if os.environ.get("SSIM_KEEP_SHOTS"):  # to look at it
            shutil.copy(shot, os.environ["SSIM_KEEP_SHOTS"])


CURVES_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../lib/report/curves.js")


class Legend(SsimTestCase):
    """curves.js on its own in the browser: a click on a legend item hides its runs."""

    def test_a_click_on_a_legend_item_hides_its_runs_in_every_chart_and_the_axes_fit_the_rest(self):
        self.assertIsNotNone(CHROMIUM, "needs Debian's chromium (scripts/install-deps.sh installs it)")
        series = [{"entity": f"train_{i}", "metric": metric, "rank": 0, "params": {"workers": str(w)},
                   "points": [[s, scale * w * s, None] for s in range(1, 4)]}
                  for metric, scale in (("loss", 1), ("grad", 2)) for i, w in enumerate((2, 100))]
        with open(CURVES_JS) as f:
            curves = f.read()
        self.write("page.html", "<!doctype html><html><body><div id=c></div><script>" + curves + """
const c = document.getElementById("c");
ssimCurves.render(c, """ + json.dumps({"series": series}) + """);
[...c.querySelectorAll(".legend-item")].find(e => e.textContent === "workers=100").click();
</script></body></html>""")
        dom = chromium("--dump-dom", "file://" + os.path.join(self.dir, "page.html")).stdout.decode()
        runs = drawn_runs(dom)
        # Hidden in both charts, its legend item struck through, the other run still there.
        self.assertEqual(set(runs["loss"]), {"train_0"})
        self.assertEqual(set(runs["grad"]), {"train_0"})
        self.assertEqual(len(re.findall(r'<span class="legend-item off"[^>]*><i [^>]*></i>workers=100</span>', dom)), 2)
        self.assertIn("1 hidden (click the legend)", dom)
        # The axes fit what is drawn: the loss chart's ticks stop near 6 (2 x 3), not 300.
        loss = re.search(r'<svg class="curve"[^>]*data-metric="loss".*?</svg>', dom, re.S).group(0)
        top = max(float(t) for t in re.findall(r'<text [^>]*class="tick"[^>]*>([0-9.]+)</text>', loss))
        self.assertLess(top, 20)


class Report(SsimTestCase):
    def setUp(self):
        super().setUp()
        self.assertIsNotNone(CHROMIUM, "needs Debian's chromium (scripts/install-deps.sh installs it)")

    def test_the_report_opens_in_a_browser_with_every_entity_and_the_failure(self):
        self.write("experiment.yaml", SWEEP)
        self.ssim("run", "experiment.yaml", check=1)
        out = self.ssim("report", check=0).stdout
        page = os.path.join(self.dir, "sweep/report.html")
        self.assertIn(page, out)
        dom = chromium("--dump-dom", "file://" + page).stdout.decode()
        for name in ["prep"] + [f"sim_{i}" for i in range(6)]:
            self.assertIn(f"<title>{name}: ", dom)  # its timeline bar
        self.assertIn("exit code 1: 1 failed", dom)
        self.assertIn("boom &lt;b&gt;n=3&lt;/b&gt;", dom)  # the stderr, as text
        self.assertEqual(len(re.findall(r"<circle", dom)), 6)  # runtime against n
        self.assertIn("SSIM_PARAM_mode", dom)  # the experiment file
        shot = os.path.join(self.dir, "shot.png")
        chromium("--screenshot=" + shot, "file://" + page)
        self.assertGreater(distinct_bytes_of_png(shot), 20)

    def test_a_failed_card_names_the_parameters_and_cancelled_entities_say_why(self):
        self.write("experiment.yaml", SWEEP + """  - name: post
    after: [sim]
    params: {k: [1, 2]}
    exe: /bin/true
""")
        self.ssim("run", "experiment.yaml", check=1)
        html = self.ssim("report", "sweep", "-o", "-", check=0).stdout
        failed = html[html.index('<section id="failures">'):]
        failed = failed[:failed.index("</section>")]
        self.assertIn("<h3>sim_5</h3>", failed)
        self.assertIn("parameters: mode=slow, n=3", failed)
        cancelled = html[html.index('<section id="cancelled">'):]
        cancelled = cancelled[:cancelled.index("</section>")]
        self.assertIn("<h2>Cancelled (2)</h2>", cancelled)
        reason = self.status()[1]["post_0"]["reason"]
        self.assertIn("sim_5", reason)  # the dependency that failed
        self.assertIn(f"<h3>{reason}</h3><p>2 entities: post_0, post_1</p>", cancelled)
        # The ensemble's table gives the reason beside the status.
        self.assertIn(f'<td class="s-cancelled" title="{reason}">cancelled</td>', html)

    def test_the_database_is_sampled_while_the_run_lasts_and_drawn(self):
        self.write("experiment.yaml", f"experiment: {{name: db}}\norchestrator: {{port: {free_port()}}}\n"
                   "models:\n  - {name: m, exe: /bin/sleep, args: ['0.3']}\n")
        self.ssim("run", "experiment.yaml", check=0)
        with open(os.path.join(self.dir, "db/.ssim/db_samples.ndjson")) as f:
            samples = [json.loads(line) for line in f]
        self.assertGreaterEqual(len(samples), 2)  # when it came up, and before it stopped
        self.assertEqual({s["shard"] for s in samples}, {"orchestrator"})
        self.assertTrue(all(s["used_memory"] > 0 and s["connected_clients"] >= 1 for s in samples), samples)
        html = self.ssim("report", "-o", "-", check=0).stdout
        self.assertIn('<section id="database">', html)
        self.assertIn("used memory: last ", html)

    def test_a_program_printing_bytes_and_escapes_leaves_the_report_clean(self):
        self.write("experiment.yaml", "experiment: {name: bytes}\nmodels:\n"
                   "  - {name: noisy, exe: /bin/sh, args: [-c, 'printf \"\\033[31mred \\377\\376 caf\\303\\251\\n\" >&2; exit 2']}\n")
        self.ssim("run", "experiment.yaml", check=1)
        raw = subprocess.run([SSIM, "report", "bytes", "-o", "-"], cwd=self.dir,
                             env=self.env, capture_output=True, timeout=60).stdout
        self.assertNotIn(b"\x1b", raw)
        text = raw.decode("utf-8")  # valid UTF-8 throughout
        self.assertIn("\ufffd[31mred \ufffd\ufffd caf\u00e9", text)

    def test_output_paths_that_are_not_regular_files(self):
        self.write("experiment.yaml", SWEEP)
        self.ssim("run", "experiment.yaml", check=1)
        before = os.stat("/dev/null")
        self.ssim("report", "sweep", "-o", "/dev/null", check=0)
        after = os.stat("/dev/null")
        self.assertTrue(stat.S_ISCHR(after.st_mode))  # written through, never replaced
        self.assertEqual((before.st_ino, before.st_rdev), (after.st_ino, after.st_rdev))
        p = self.ssim("report", "sweep", "-o", "/dev/full", check=3)
        self.assertEqual(p.stderr.strip(), "ssim: cannot write /dev/full: No space left on device")
        target = os.path.join(self.dir, "target.html")
        os.symlink(target, os.path.join(self.dir, "link.html"))
        p = self.ssim("report", "sweep", "-o", "link.html", check=2)
        self.assertIn("link.html is a symbolic link", p.stderr)
        self.assertTrue(os.path.islink(os.path.join(self.dir, "link.html")))
        self.assertFalse(os.path.exists(target))
        fifo = os.path.join(self.dir, "pipe")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
        reader.start()
        self.ssim("report", "sweep", "-o", fifo, check=0)
        reader.join(timeout=30)
        self.assertTrue(got and got[0].startswith(b"<!DOCTYPE html>"), got[:1])

    def test_a_running_experiment_gives_a_snapshot_on_stdout(self):
        self.write("experiment.yaml", "experiment: {name: live}\nmodels:\n"
                   "  - {name: quick, exe: /bin/true}\n  - {name: slow, exe: /bin/sleep, args: ['60']}\n")
        self.run_until("live", "slow")
        wait_for(lambda: self.status()[1]["quick"]["status"] == "completed", what="quick to complete")
        html = self.ssim("report", "live", "-o", "-", check=0).stdout
        self.assertIn("running (a snapshot taken", html)
        self.assertIn("<title>slow: running, ", html)
        self.assertIn("<title>quick: completed, ", html)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "live/report.html")))
        self.ssim("stop", "live", check=0)


class Dashboard(SsimTestCase):
    def setUp(self):
        super().setUp()
        self.assertIsNotNone(CHROMIUM, "needs Debian's chromium (scripts/install-deps.sh installs it)")

    def get(self, url):
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()

    def dashboard(self, *exps):
        """Starts `ssim dashboard EXP... --port 0`: its URL, base, token, and the first
        experiment's path quoted for a query or the page's address."""
        url = self.ssim_background("dashboard", *exps, "--port", "0").stdout.readline().strip()
        base, token = url.split("/?token=")
        exp = urllib.parse.quote(os.path.join(self.dir, exps[0]), safe="") if exps else ""
        return url, base, token, exp

    def test_the_live_page_shows_a_state_change_and_refuses_requests_without_the_token(self):
        self.write("experiment.yaml", """
experiment: {name: live}
models:
  - {name: quick, exe: /bin/sh, args: [-c, "echo hello from quick"]}
  - {name: waiter, exe: /bin/sh, args: [-c, "echo waiting; until test -e ../go; do sleep 0.05; done; echo done"]}
""")
        self.run_until("live", "waiter")
        dash = self.ssim_background("dashboard", "live", "--port", "0")
        url = dash.stdout.readline().strip()
        self.assertRegex(url, r"^http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32}$")
        base, token = url.split("/?token=")
        exp = os.path.join(self.dir, "live")
        api = f"{base}/api/status?exp={urllib.parse.quote(exp)}&token={token}"
        wrong = ("1" if token[0] == "0" else "0") + token[1:]  # one character off, never the token itself
        for bad in (f"{base}/", f"{base}/api/status?exp={exp}", f"{base}/?token={wrong}"):
            with self.assertRaises(urllib.error.HTTPError) as e:
                self.get(bad)
            self.assertEqual(e.exception.code, 403, bad)
        with self.assertRaises(urllib.error.HTTPError) as e:  # only the experiments it serves
            self.get(f"{base}/api/status?exp=/etc&token={token}")
        self.assertEqual(e.exception.code, 404)

        def states():
            return {e["name"]: e["status"] for e in json.loads(self.get(api)[1])["entities"]}
        wait_for(lambda: states()["quick"] == "completed", what="quick to complete")
        self.assertEqual(states()["waiter"], "running")
        dom = chromium("--virtual-time-budget=4000", "--dump-dom", url).stdout.decode()
        self.assertRegex(dom, r'<td>waiter</td><td class="s-running">running</td>')
        self.assertRegex(dom, r'<td>quick</td><td class="s-completed">completed</td>')

        open(os.path.join(exp, "go"), "w").close()  # the state change
        wait_for(lambda: states()["waiter"] == "completed", what="the dashboard to see waiter complete")
        dom = chromium("--virtual-time-budget=4000", "--dump-dom", url).stdout.decode()
        self.assertRegex(dom, r'<td>waiter</td><td class="s-completed">completed</td>')
        logs = json.loads(self.get(f"{base}/api/logs?exp={exp}&entity=waiter&token={token}")[1])
        self.assertEqual((logs["data"], logs["ended"]), ("waiting\ndone\n", True))
        status, html = self.get(f"{base}/report?exp={exp}&token={token}")
        self.assertIn("<title>waiter: completed", html)
        shot = os.path.join(self.dir, "dash.png")
        chromium("--virtual-time-budget=4000", "--screenshot=" + shot, url)
        self.assertGreater(distinct_bytes_of_png(shot), 20)

    def test_triage_failed_first_per_ensemble_progress_chip_filters_and_the_detail_beside(self):
        self.write("experiment.yaml", """
experiment: {name: tri}
models:
  - {name: prep, exe: /bin/true}
ensembles:
  - name: sim
    exe: /bin/sh
    args: [-c, 'echo "bad input n=$(n)" >&2; exit $(code)']
    params: {n: [1, 2, 3, 4], code: [0, 3, 0, 0]}
    strategy: step
    env: {API_TOKEN: hunter2, STORE: "redis://:pw42@cn1:6379/0", LEARNING_RATE: "0.1"}
""")
        self.ssim("run", "experiment.yaml", check=1)
        url, base, token, exp = self.dashboard("tri")

        def dom(fragment):
            return chromium("--virtual-time-budget=4000", "--dump-dom", url + "#exp=" + exp + fragment).stdout.decode()
        page = dom("")
        rows = re.findall(r'<tr class="entity[^"]*" data-name="([^"]+)"', page)
        self.assertEqual(rows[0], "sim_1", rows)  # the failed member first, then the manifest's order
        self.assertEqual(sorted(rows), ["prep", "sim_0", "sim_1", "sim_2", "sim_3"])
        self.assertIn('data-ensemble="sim"', page)
        self.assertIn("4/4 ended \u00b7 1 failed", page)
        self.assertRegex(page, r'<span data-status="failed"[^>]*>1 failed</span>')
        only_completed = dom("&filter=completed")
        self.assertNotIn('data-name="sim_1"', only_completed)
        self.assertIn('data-name="sim_2"', only_completed)
        self.assertRegex(only_completed, r'<span data-status="failed" class="off"')
        detail = dom("&entity=sim_1")
        box = re.search(r'<div id="detail"[^>]*>(.*?)</div>', detail, re.S).group(1)
        self.assertIn("<h3>sim_1</h3>", box)
        self.assertIn("failed (exit 3)", box)
        self.assertIn("bad input n=2", box)  # its last error line
        self.assertIn(os.path.join(self.dir, "tri", "sim", "sim_1"), box)
        self.assertIn("<dt>param n</dt><dd>2</dd>", box)
        # What it was started with: the command line, the environment with secrets masked.
        self.assertIn("<dt>command</dt><dd><code>/bin/sh -c 'echo \"bad input n=2\" &gt;&amp;2; exit 3'</code></dd>", box)
        self.assertRegex(box, r"<summary>environment \(\d+ variables, 2 masked\)</summary>")
        self.assertIn("<td>LEARNING_RATE</td><td>0.1</td>", box)
        self.assertIn("<td>API_TOKEN</td><td>********</td>", box)
        self.assertIn("<td>STORE</td><td>redis://:********@cn1:6379/0</td>", box)
        self.assertNotIn("hunter2", detail)
        self.assertNotIn("pw42", detail)
        launch = json.loads(self.get(f"{base}/api/launch?exp={exp}&entity=sim_1&token={token}")[1])
        self.assertEqual(launch["argv"][0], "/bin/sh")
        self.assertEqual(launch["masked"], 2)
        # One masking rule: the report page and the report file show the experiment file
        # with the same secrets masked where they are written.
        _, report_page = self.get(f"{base}/report?exp={exp}&token={token}")
        self.ssim("report", "tri", check=0)
        with open(os.path.join(self.dir, "tri", "report.html")) as f:
            report_file = f.read()
        for html in (report_page, report_file):
            self.assertNotIn("hunter2", html)
            self.assertNotIn("pw42", html)
            self.assertIn("API_TOKEN: ********", html)
            self.assertIn("redis://:********@cn1:6379/0", html)
            self.assertIn("LEARNING_RATE: &quot;0.1&quot;", html)
        shot = os.path.join(self.dir, "triage.png")
        chromium("--virtual-time-budget=4000", "--window-size=1400,900", "--screenshot=" + shot, url + "#exp=" + exp + "&entity=sim_1")
        self.assertGreater(distinct_bytes_of_png(shot), 20)
        if os.environ.get("SSIM_KEEP_SHOTS"):  # to look at it
            shutil.copy(shot, os.environ["SSIM_KEEP_SHOTS"])

    def test_the_detail_shows_the_selected_members_curve_growing_while_it_runs(self):
        self.write("grow.sh", "i=0\nwhile [ ! -e ../stop ]; do\n"
                   "  echo \"ssim:metric loss=$((1000 - i)) step=$i\"; i=$((i + 1)); sleep 0.05\ndone\n")
        self.write("experiment.yaml", f"experiment: {{name: grow}}\nmodels:\n"
                   f"  - {{name: g, exe: /bin/sh, args: [{os.path.join(self.dir, 'grow.sh')}]}}\n")
        run = self.run_until("grow", "g")
        self.addCleanup(lambda: open(os.path.join(self.dir, "grow", "stop"), "w").close())
        url, base, token, exp = self.dashboard("grow")

        def served():
            doc = json.loads(self.get(f"{base}/api/metrics?exp={exp}&entity=g&token={token}")[1])
            return sum(len(s["points"]) for s in doc["series"])

        def drawn():
            dom = chromium("--virtual-time-budget=3000", "--dump-dom", url + "#exp=" + exp + "&entity=g").stdout.decode()
            runs = drawn_runs(dom).get("loss")
            self.assertIsNotNone(runs, "no loss curve in the detail")
            self.assertIn("g: last", dom)
            return runs["g"][1]
        wait_for(lambda: served() >= 3, what="the first points")
        first = drawn()
        wait_for(lambda: served() >= first + 10, what="more points")
        self.assertGreater(drawn(), first)  # the same page, later: the curve grew
        open(os.path.join(self.dir, "grow", "stop"), "w").close()
        self.assertEqual(run.wait(timeout=30), 0)

    def test_the_database_panel_shows_each_shard_live(self):
        self.write("experiment.yaml", f"experiment: {{name: dbp}}\norchestrator: {{port: {free_port()}}}\nmodels:\n"
                   "  - {name: w, exe: /bin/sh, args: [-c, 'while [ ! -e ../stop ]; do sleep 0.1; done']}\n")
        run = self.run_until("dbp", "w")
        self.addCleanup(lambda: open(os.path.join(self.dir, "dbp", "stop"), "w").close())
        url, base, token, exp = self.dashboard("dbp")

        def shards():
            return json.loads(self.get(f"{base}/api/database?exp={exp}&token={token}")[1])["shards"]
        wait_for(lambda: shards() and len(shards()[0]["series"]) >= 2, timeout=30, what="two samples of the shard")
        shard = shards()[0]
        self.assertEqual(shard["shard"], "orchestrator")
        self.assertGreater(shard["latest"]["used_memory"], 0)
        self.assertGreaterEqual(shard["latest"]["connected_clients"], 1)
        page = url + "#exp=" + exp
        dom = chromium("--virtual-time-budget=4000", "--dump-dom", page).stdout.decode()
        panel = re.search(r'<div id="database" style="display: block;?">(.*?)</div>', dom, re.S)
        self.assertIsNotNone(panel, "the database panel is not shown")
        self.assertIn("<td>orchestrator</td>", panel.group(1))
        self.assertRegex(panel.group(1), r"<td>[0-9.]+ (KiB|MiB)</td>")
        self.assertRegex(panel.group(1), r'<polyline class="ops" points="[0-9.]+,[0-9.]+ [0-9.]+,[0-9.]+')
        shot = os.path.join(self.dir, "database-panel.png")
        chromium("--virtual-time-budget=4000", "--window-size=1200,1400", "--screenshot=" + shot, page)
        self.assertTrue(os.path.getsize(shot) > 0)
        if os.environ.get("SSIM_KEEP_SCREENSHOTS"):
            shutil.copy(shot, os.environ["SSIM_KEEP_SCREENSHOTS"])
        open(os.path.join(self.dir, "dbp", "stop"), "w").close()
        self.assertEqual(run.wait(timeout=60), 0)

    def test_an_ensembles_overlay_can_be_narrowed_to_one_parameter_value(self):
        self.write("experiment.yaml", """
experiment: {name: pick}
ensembles:
  - name: sim
    exe: /bin/sh
    args: [-c, 'for s in 1 2 3; do echo "ssim:metric loss=$$(( $(n) * 10 + $(k) - s )) step=$$s"; done']
    params: {n: [1, 2], k: [0, 5]}
""")
        self.ssim("run", "experiment.yaml")
        url, base, token, exp = self.dashboard("pick")
        doc = json.loads(self.get(f"{base}/api/metrics?exp={exp}&ensemble=sim&where=n%3D2&token={token}")[1])
        self.assertEqual(doc["members"], 2)
        self.assertEqual(doc["where"], {"param": "n", "value": "2"})
        self.assertEqual(sorted(s["points"][0][1] for s in doc["series"]), [19, 24])  # n=2 with k=0 and k=5
        dom = chromium("--virtual-time-budget=3000", "--dump-dom",
                       url + "#exp=" + exp + "&ensemble=sim&where=" + urllib.parse.quote("n=2")).stdout.decode()
        # Told apart by the parameter that differs between the two (n is the same).
        self.assertEqual(sorted(label for label, _ in drawn_runs(dom)["loss"].values()), ["k=0", "k=5"])
        self.assertIn('<option value="n=2" selected="">n = 2</option>', dom)
        with self.assertRaises(urllib.error.HTTPError) as e:
            self.get(f"{base}/api/metrics?exp={exp}&ensemble=sim&where=n%3D7&token={token}")
        self.assertEqual(e.exception.code, 404)

    def test_a_port_in_use_is_one_plain_line_naming_who_holds_it(self):
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen()
            port = s.getsockname()[1]
            p = self.ssim("dashboard", "--port", str(port), timeout=30)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(f"cannot listen on 127.0.0.1:{port}: the port is in use by python3 (pid {os.getpid()})", lines[0])
        self.assertNotIn("boost", lines[0].lower())

    def test_the_side_list_hides_experiments_whose_folders_are_gone(self):
        for name in ("kept", "gone"):
            self.write(f"{name}.yaml", f"experiment: {{name: {name}}}\nmodels:\n  - {{name: m, exe: /bin/true}}\n")
            self.ssim("run", f"{name}.yaml")
        shutil.rmtree(os.path.join(self.dir, "gone"))
        _, base, token, _ = self.dashboard()  # the history: both were run here
        listed = json.loads(self.get(f"{base}/api/experiments?token={token}")[1])
        self.assertEqual([x["name"] for x in listed], ["kept"])

    def test_an_ensembles_members_curves_are_overlaid_when_its_name_is_chosen(self):
        self.write("experiment.yaml", """
experiment: {name: over}
ensembles:
  - name: sim
    exe: /bin/sh
    args: [-c, 'for s in 1 2 3 4 5; do echo "ssim:metric loss=$$(( $(n) * 10 - s )) step=$$s"; done']
    params: {n: [1, 2, 3]}
""")
        self.ssim("run", "experiment.yaml")
        url, base, token, exp = self.dashboard("over")
        doc = json.loads(self.get(f"{base}/api/metrics?exp={exp}&ensemble=sim&token={token}")[1])
        self.assertEqual((doc["members"], sorted(s["entity"] for s in doc["series"])), (3, ["sim_0", "sim_1", "sim_2"]))
        # [step, value, seconds since the start]: printed lines carry no time.
        self.assertEqual(doc["series"][2]["points"], [[1, 29, None], [2, 28, None], [3, 27, None], [4, 26, None],
                                                      [5, 25, None]])
        self.assertEqual(doc["series"][2]["params"], {"n": "3"})
        dom = chromium("--virtual-time-budget=3000", "--dump-dom", url + "#exp=" + exp + "&ensemble=sim").stdout.decode()
        self.assertEqual(drawn_runs(dom)["loss"], {"sim_0": ("n=1", 5), "sim_1": ("n=2", 5), "sim_2": ("n=3", 5)})
        self.assertIn("<h3>sim (ensemble)</h3>", dom)
        self.assertIn("3 members", dom)
        with self.assertRaises(urllib.error.HTTPError) as e:
            self.get(f"{base}/api/metrics?exp={exp}&ensemble=nope&token={token}")
        self.assertEqual(e.exception.code, 404)


class SummaryWhileARunHoldsIt(SsimTestCase):
    """`ssim status --summary` reads what the live run counted; once that run is gone,
    the records again, whatever the run's last summary said."""

    def test_the_summary_is_the_runs_while_it_lives_and_the_records_after(self):
        go = os.path.join(self.dir, "go")
        self.write("experiment.yaml", "experiment: {name: live}\nensembles:\n"
                   "  - {name: quick, exe: /bin/true, replicas: 3}\n"
                   "  - {name: bad, exe: /bin/sh, args: [-c, 'exit 3'], replicas: 2}\n"
                   f"  - {{name: slow, exe: /bin/sh, args: [-c, 'while [ ! -e {go} ]; do sleep 0.05; done'],"
                   " replicas: 2}\n")
        run = self.ssim_background("run", "experiment.yaml")
        expected = ["quick  3 total: 3 completed", "bad    2 total: 2 failed", "slow   2 total: 2 running",
                    "failed (2): bad_0 (exit 3), bad_1 (exit 3)"]
        seen = {}

        def summary_says(lines):
            seen["out"] = self.ssim("status", "live", "--summary").stdout
            return all(line in seen["out"].splitlines() for line in lines)
        wait_for(lambda: summary_says(expected), what="the run's summary", timeout=30)
        self.assertIn(f"(run pid {run.pid})", seen["out"].splitlines()[0])
        with open(os.path.join(self.dir, "live/.ssim/summary.json")) as f:
            written = json.load(f)
        self.assertEqual(written["pid"], run.pid)
        # What the records say, read whole, is what the run counted.
        doc, _ = self.status("live")
        counts = {}
        for e in doc["entities"]:
            counts[(e["name"].rsplit("_", 1)[0], e["status"])] = counts.get((e["name"].rsplit("_", 1)[0], e["status"]), 0) + 1
        self.assertEqual(counts, {("quick", "completed"): 3, ("bad", "failed"): 2, ("slow", "running"): 2})

        run.kill()  # kill -9: its last summary stays behind, saying "running"
        run.communicate()
        with open(go, "w"):
            pass
        wait_for(lambda: summary_says(["slow   2 total: 2 completed"]), what="the members' ends", timeout=30)
        self.assertIn("(no ssim process tracking it)", seen["out"].splitlines()[0])


class StatusAndRunLines(SsimTestCase):
    def setUp(self):
        super().setUp()
        self.write("experiment.yaml", SWEEP)
        self.run = self.ssim("run", "experiment.yaml", check=1)

    def test_the_run_points_at_the_failure_and_ends_with_one_line(self):
        failure = [l for l in self.run.stderr.splitlines() if l.startswith("ssim: sim_5 failed")]
        self.assertEqual(len(failure), 1, self.run.stderr)
        self.assertIn("exit code 5 | boom <b>n=3</b>", failure[0])  # its last stderr line
        self.assertIn(f"(ssim logs {os.path.join(self.dir, 'sweep')} sim_5 --stderr)", failure[0])
        self.assertRegex(self.run.stderr.splitlines()[-1], r"^ssim: 6 completed, 1 failed in \d+\.\d s$")

    def test_status_filter_format_summary_and_watch_without_a_terminal(self):
        # Every form exits 1 while an entity failed: scripts gate on `ssim status EXP`.
        rows = self.ssim("status", "--filter", "failed", check=1).stdout.splitlines()
        self.assertEqual([r.split()[0] for r in rows[2:]], ["sim_5"])
        self.assertIn("PARAMS", rows[1])
        self.assertIn("mode=slow,n=3", rows[2])
        self.assertIn('unknown status "bogus"', self.ssim("status", "--filter", "bogus", check=2).stderr)
        out = self.ssim("status", "-o", "{name}={status}", check=1).stdout.splitlines()
        self.assertEqual(out[1:3], ["NAME =STATUS", "prep =completed"])
        self.assertIn("unknown status field", self.ssim("status", "-o", "nme", check=2).stderr)
        summary = self.ssim("status", "--summary", check=1).stdout
        self.assertIn("sim       6 total: 5 completed, 1 failed", summary)
        self.assertIn("failed (1): sim_5 (exit 5)", summary)
        watched = self.ssim("status", "--watch", "sweep", check=1).stdout  # --watch EXP
        self.assertNotIn("\033[", watched)  # piped: no screen clearing
        self.assertIn("sim_5", watched)
        lines = self.ssim("status", "--json", "--watch", check=1).stdout.splitlines()
        self.assertEqual(len(lines), 1)  # one JSON line per refresh
        doc = json.loads(lines[0])
        self.assertEqual({e["name"]: e["params"] for e in doc["entities"]}["sim_5"], {"mode": "slow", "n": "3"})

    def test_events_are_json_lines_on_stdout_and_in_the_events_file(self):
        self.write("again.yaml", SWEEP.replace("name: sweep", "name: again"))
        p = self.ssim("run", "again.yaml", "--events", check=1)
        events = [json.loads(line) for line in p.stdout.splitlines()]  # stdout holds only events
        self.assertEqual(events[-1]["event"], "finished")
        self.assertEqual((events[-1]["exit_code"], events[-1]["counts"]), (1, {"completed": 6, "failed": 1}))
        failed = [e for e in events if e["event"] == "entity" and e["status"] == "failed"]
        self.assertEqual([(e["entity"], e["exit_code"]) for e in failed], [("sim_5", 5)])
        self.assertIn("boom <b>n=3</b>", failed[0]["hint"])
        self.assertEqual(sum(e["event"] == "entity" and e["status"] == "completed" for e in events), 6)
        with open(os.path.join(self.dir, "again/.ssim/events.ndjson")) as f:
            self.assertEqual([json.loads(l) for l in f], events)
        # A reader that goes away does not end the run.
        self.write("third.yaml", SWEEP.replace("name: sweep", "name: third"))
        sh = subprocess.run(f"{SSIM} run third.yaml --events | head -1", shell=True, cwd=self.dir,
                            env=self.env, capture_output=True, text=True, timeout=60)
        self.assertEqual(len(sh.stdout.splitlines()), 1)
        wait_for(lambda: self.manifest("third")["finished"] > 0, what="the run to finish")
        self.assertEqual(sum(e["status"] == "completed" for e in self.manifest("third")["entities"]), 6)

    def test_list_shows_the_experiments_run_newest_first(self):
        self.write("other.yaml", "experiment: {name: other}\nmodels:\n  - {name: m, exe: /bin/true}\n")
        self.ssim("run", "other.yaml", check=0)
        lines = self.ssim("list", check=0).stdout.splitlines()
        self.assertEqual([l.split()[:2] for l in lines], [["NAME", "OUTCOME"], ["other", "completed"],
                                                          ["sweep", "failed"]])
        self.assertIn("(1 of 7)", lines[2])
        doc = json.loads(self.ssim("list", "--json", check=0).stdout)
        self.assertEqual([(d["name"], d["outcome"], d["counts"]) for d in doc],
                         [("other", "completed", {"completed": 1}), ("sweep", "failed", {"completed": 6, "failed": 1})])

    def test_list_says_a_stopped_experiment_was_stopped(self):
        self.write("stopped.yaml", "experiment: {name: stopped}\nmodels:\n  - {name: m, exe: /bin/sleep, args: ['300']}\n")
        run = self.ssim_background("run", "stopped.yaml")
        from ssimtest import wait_for
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "stopped/.ssim/manifest.json")), what="manifest")
        wait_for(lambda: self.status("stopped.yaml")[1]["m"]["status"] == "running", what="m running")
        self.ssim("stop", "stopped", check=0, timeout=30)
        self.assertEqual(run.wait(timeout=30), 1)
        doc = {d["name"]: d for d in json.loads(self.ssim("list", "--json", check=0).stdout)}
        self.assertEqual(doc["stopped"]["outcome"], "stopped", doc["stopped"])


if __name__ == "__main__":
    unittest.main()
