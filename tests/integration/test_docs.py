"""The user documentation (docs/, README.md, the man pages) is checked by running it:
every experiment in a ```yaml block validates, those marked `# docs example: run` run
to exit 0, JSON blocks parse, relative links resolve, man pages render cleanly."""
import glob
import json
import os
import re
import subprocess
import unittest

from ssimtest import SSIM, SsimTestCase, free_port

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
PAGES = sorted(glob.glob(os.path.join(ROOT, "docs/*.md")) + glob.glob(os.path.join(ROOT, "docs/dev/*.md"))) + \
    [os.path.join(ROOT, "README.md")]


def blocks(page, language):
    with open(page) as f:
        text = f.read()
    return re.findall(r"```" + language + r"\n(.*?)```", text, re.S)


class Docs(SsimTestCase):
    def test_every_experiment_in_the_docs_validates_and_the_marked_ones_run(self):
        checked = ran = 0
        for page in PAGES:
            for i, block in enumerate(blocks(page, "yaml")):
                if not re.search(r"^experiment:", block, re.M):
                    continue
                with self.subTest(page=os.path.basename(page), block=i):
                    name = f"{os.path.basename(page)}-{i}.yaml"
                    # The programs a snippet copies in are the reader's: stand-ins will do.
                    for listed in re.findall(r"(?:copy|symlink|configure): \[(.*?)\]", block):
                        for f in filter(None, (x.strip().strip("'\"") for x in listed.split(","))):
                            self.write(f, "")
                    text = re.sub(r"port: \d+", f"port: {free_port()}", block)
                    self.write(name, text)
                    p = self.ssim("validate", name)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    checked += 1
                    if "# docs example: run" in block:
                        p = self.ssim("run", name, timeout=120)
                        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                        ran += 1
        self.assertGreaterEqual(checked, 2)
        self.assertGreaterEqual(ran, 1)

    def test_every_verb_is_in_the_readme_table_and_the_cli_synopsis(self):
        out = subprocess.run([SSIM, "--help"], capture_output=True, text=True).stdout
        verbs = re.findall(r"^  ([a-z]+)  ", out.split("Subcommands:", 1)[1], re.M)
        self.assertIn("dashboard", verbs)
        with open(os.path.join(ROOT, "README.md")) as f:
            readme = f.read()
        with open(os.path.join(ROOT, "docs/cli.md")) as f:
            synopsis = f.read().split("```", 2)[1]
        for verb in verbs:
            self.assertIn(f"| `ssim {verb}", readme, f"the README's command table lacks {verb}")
            self.assertRegex(synopsis, rf"(?m)^ssim {verb}\b", f"docs/cli.md's synopsis lacks {verb}")

    def test_json_examples_parse(self):
        for page in PAGES:
            for block in blocks(page, "json"):
                json.loads(block)

    def test_relative_links_resolve(self):
        for page in PAGES:
            with open(page) as f:
                for target in re.findall(r"\]\(([^)#]+)\)", f.read()):
                    if "://" in target:
                        continue
                    path = os.path.normpath(os.path.join(os.path.dirname(page), target))
                    self.assertTrue(os.path.exists(path), f"{page}: broken link {target}")

    def test_man_pages_render_without_warnings(self):
        pages = glob.glob(os.path.join(ROOT, "docs/man/*.1"))
        self.assertGreaterEqual(len(pages), 6)
        for page in pages:
            p = subprocess.run(["groff", "-man", "-ww", "-z", page], capture_output=True, text=True)
            self.assertEqual((p.returncode, p.stderr), (0, ""), page)


    def test_bash_completes_verbs_and_options(self):
        script = os.path.join(ROOT, "configs/completion/ssim.bash")
        def complete(*words):
            line = " ".join(words)
            p = subprocess.run(["bash", "-c", f'source "{script}"; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; '
                                '_ssim; echo "${COMPREPLY[@]}"'], capture_output=True, text=True)
            self.assertEqual(p.stderr, "")
            return p.stdout.split()
        self.assertEqual(complete("ssim", "ru"), ["run"])
        self.assertEqual(complete("ssim", "do"), ["doctor"])
        self.assertIn("--resume", complete("ssim", "run", "--re"))
        self.assertEqual(complete("ssim", "run", "--launcher", "sl"), ["slurm"])


if __name__ == "__main__":
    unittest.main()
