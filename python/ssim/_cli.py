"""Finding and running the `ssim` command: the Python experiment API drives experiments
through it (the engine runs in its own process, so a notebook kernel can die without
losing the run), and reads its --json answers."""
import json
import os
import shutil
import subprocess
import sys

_binary = None


def set_binary(path):
    """Use this `ssim` executable (else: $SSIM_BIN, the one installed with this module,
    the build tree's, then `ssim` on PATH)."""
    global _binary
    path = os.path.abspath(os.path.expanduser(os.fspath(path)))
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(f"no executable ssim at {path}")
    _binary = path


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.environ.get("SSIM_BIN", "")
    yield os.path.join(here, "bin", "ssim")                        # pip install: inside the package
    yield os.path.join(here, "..", "..", "apps", "ssim", "ssim")   # the build tree: build/python/ssim
    yield os.path.join(here, "..", "..", "..", "..", "bin", "ssim")  # cmake --install: <prefix>/lib/python3/dist-packages
    yield shutil.which("ssim") or ""


def binary():
    """The `ssim` executable this module uses."""
    global _binary
    if _binary:
        return _binary
    for c in _candidates():
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            _binary = os.path.realpath(c)
            return _binary
    raise FileNotFoundError(
        "cannot find the ssim command: install it (pip install <ssim source>/python), put it on PATH, "
        "set SSIM_BIN, or call ssim.set_binary(path)")


class SsimError(Exception):
    """What the ssim command refused or could not do: `message` is its one line (for a bad
    experiment file, FILE:LINE:COL: field.path: what is wrong), `exit_code` its code (2 bad
    input, 3 the environment failed; docs/cli.md)."""

    def __init__(self, message, exit_code=1):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class ExperimentError(SsimError, ValueError):
    """Bad input: the experiment, a name or an option (exit code 2). Nothing was started."""


def _environment():
    env = dict(os.environ)
    # `exe: python3` in an experiment driven from Python means this interpreter
    # (docs/python.md: SSIM_PYTHON).
    env["SSIM_PYTHON"] = sys.executable
    return env


def _error_from(proc, args):
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    text = lines[-1] if lines else f"ssim {' '.join(args)} failed with exit code {proc.returncode}"
    if text.startswith("ssim: "):
        text = text[len("ssim: "):]
    if text.startswith("error: "):
        text = text[len("error: "):]
    cls = ExperimentError if proc.returncode == 2 else SsimError
    return cls(text, proc.returncode)


def run(args, ok=(0,), timeout=None):
    """Runs `ssim ARGS`; returns the CompletedProcess, or raises SsimError when its exit
    code is not in `ok`."""
    proc = subprocess.run([binary(), *args], capture_output=True, text=True, env=_environment(),
                          stdin=subprocess.DEVNULL, timeout=timeout)
    if proc.returncode not in ok:
        raise _error_from(proc, args)
    return proc


def run_json(args, ok=(0,)):
    proc = run(args, ok=ok)
    return json.loads(proc.stdout)


def main():
    """The `ssim` console command of a pip install: the binary inside the package."""
    path = binary()
    os.execv(path, [path, *sys.argv[1:]])
