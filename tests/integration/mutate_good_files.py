#!/usr/bin/env python3
"""Mutation test for the experiment-file reader.

Takes the good experiment files (the examples and tests/fixtures/good), damages them at
random (deleted lines and characters, truncations, swapped value types, stray bytes and
brackets), and runs `ssim validate` and `ssim run --dry-run` on each mutant. Every run
must end within the deadline with exit 0 or 2, print at most one line on stderr, never
say "internal error", and write nothing in its working directory.

    mutate_good_files.py SSIM [COUNT] [SEED]
"""
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
DEADLINE_S = 10


def good_files():
    files = sorted(glob.glob(os.path.join(ROOT, "examples/*/*.yaml")))
    files += sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/good/*/*.yaml")))
    return files


SWAPS = ["[]", "{}", "~", "-1", "0", "99999999999999999999", "true", "\"\"", "[a, [b]]",
         "{a: {b: c}}", "\"\\0\"", "\"a\\nb\"", "&x 1", "*x", "!!binary aGk=", "1e400", "0x1F"]


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.randrange(8)
    if kind == 0 and len(lines) > 1:  # delete a line
        del lines[rng.randrange(len(lines))]
    elif kind == 1:  # truncate anywhere
        return text[: rng.randrange(len(text) + 1)]
    elif kind == 2 and text:  # delete a run of characters
        i = rng.randrange(len(text))
        return text[:i] + text[i + rng.randrange(1, 8):]
    elif kind == 3:  # swap a value's type
        candidates = [i for i, l in enumerate(lines) if ":" in l and not l.strip().startswith("#")]
        if candidates:
            i = rng.choice(candidates)
            key = lines[i].split(":", 1)[0]
            lines[i] = key + ": " + rng.choice(SWAPS)
    elif kind == 4:  # stray bytes
        i = rng.randrange(len(text) + 1)
        junk = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 6))).decode("latin-1")
        return text[:i] + junk + text[i:]
    elif kind == 5:  # an unbalanced bracket or quote
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice("[{]}\"'") + text[i:]
    elif kind == 6 and len(lines) > 1:  # re-indent a line
        i = rng.randrange(len(lines))
        lines[i] = " " * rng.randrange(0, 9) + lines[i].lstrip()
    else:  # duplicate a line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    return "\n".join(lines)


def main():
    ssim = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20261123)
    sources = good_files()
    failures = 0
    outcomes = {0: 0, 2: 0}
    for n in range(count):
        source = rng.choice(sources)
        with open(source, encoding="utf-8") as f:
            text = f.read()
        mutant = mutate(text, rng)
        for _ in range(rng.randrange(3)):
            mutant = mutate(mutant, rng)
        # The mutant sits beside its original, so that files: entries still resolve.
        path = os.path.join(os.path.dirname(source), ".mutant-%d.yaml" % os.getpid())
        with open(path, "w", encoding="latin-1") as f:
            f.write(mutant)
        scratch = tempfile.mkdtemp()
        try:
            for argv in ([ssim, "validate", path], [ssim, "run", "--dry-run", path]):
                try:
                    p = subprocess.run(argv, cwd=scratch, capture_output=True, timeout=DEADLINE_S,
                                       env=dict(os.environ, SSIM_STATE_HOME=os.path.join(scratch, ".state-unused")))
                except subprocess.TimeoutExpired:
                    print("HANG (%ss) %s on mutant %d of %s" % (DEADLINE_S, argv[1], n, source))
                    failures += 1
                    continue
                err = p.stderr.decode("latin-1").strip()
                problems = []
                if p.returncode not in (0, 2):
                    problems.append("exit %d" % p.returncode)
                if "internal error" in err:
                    problems.append("internal error")
                if p.returncode == 2 and len(err.splitlines()) != 1:
                    problems.append("%d lines on stderr" % len(err.splitlines()))
                if os.listdir(scratch):
                    problems.append("wrote %s" % os.listdir(scratch))
                    shutil.rmtree(scratch)
                    os.mkdir(scratch)
                if problems:
                    failures += 1
                    print("FAIL %s mutant %d of %s: %s\n  stderr: %s\n  mutant:\n%s" %
                          (argv[1], n, os.path.relpath(source, ROOT), ", ".join(problems), err[:500], mutant[:2000]))
                if argv[1] == "validate":
                    outcomes[p.returncode] = outcomes.get(p.returncode, 0) + 1
        finally:
            os.unlink(path)
            shutil.rmtree(scratch, ignore_errors=True)
    print("%d mutants: %d valid, %d refused, %d failures" % (count, outcomes.get(0, 0), outcomes.get(2, 0), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
