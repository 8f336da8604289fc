"""ssim report (issue #12): the HTML file opened in a real browser (Debian's headless
chromium): every entity is in the DOM, the failure shows its stderr, the page renders
to a screenshot that is not blank; a running experiment gives a snapshot."""
import os
import re
import shutil
import struct
import subprocess
import unittest
import zlib

from ssimtest import SsimTestCase, wait_for

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


if __name__ == "__main__":
    unittest.main()
