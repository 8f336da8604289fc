"""Training metrics from any rank, kept with the experiment (docs/metrics.md).

    import ssim.metrics
    ssim.metrics.log("loss", 0.31, step=120)
    ssim.metrics.log(loss=0.31, accuracy=0.9, step=120, epoch=2, phase="val")

Points are buffered and written to <run_dir>/metrics.RANK.ndjson at least every second
and at exit (a kill -9 loses at most the last second), so they outlast the program, the
database and `ssim run`. The rank is taken from the MPI or torch launcher's environment.
`ssim status -o name,status,loss`, `ssim metrics EXP` and the report read them. A program
without this module can print `ssim:metric loss=0.31 step=120` lines instead.
"""
import atexit
import fcntl
import json
import math
import os
import threading
import time

from ._rank import rank_info

FLUSH_SECONDS = 1.0


def rank():
    """This process's rank (0 when alone): RANK, set by ssim, else its launcher's."""
    return rank_info()[0]


def _append_locked(path, data):
    """One write of whole lines, appended under an exclusive flock of the file (a kill
    between two leaves no torn line but the last, which readers skip). ssim thins a file
    past its bound by renaming a copy over it under the same lock: once locked, a file the
    path no longer names is the old one, and the lines go to the new one instead."""
    while True:  # another turn only when ssim replaced the file meanwhile (rare)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                return
        finally:
            os.close(fd)


class _Writer:
    def __init__(self):
        self.lock = threading.Lock()
        self.pending = []
        self.path = None
        self.pid = None
        self.thread = None

    def _file(self):
        folder = os.environ.get("SSIM_RUN_DIR") or os.getcwd()
        return os.path.join(folder, f"metrics.{rank()}.ndjson")

    def add(self, points):
        with self.lock:
            if self.pid != os.getpid():  # a fresh process (or a fork): its own flusher
                self.pid = os.getpid()
                self.pending = []
                self.thread = threading.Thread(target=self._flush_every_second, daemon=True)
                self.thread.start()
            self.pending.extend(points)

    def flush(self):
        with self.lock:
            points, self.pending = self.pending, []
        if not points:
            return
        lines = []
        for p in points:  # serialised here, off the training loop's path
            try:
                lines.append(_line(*p))
            except (TypeError, ValueError, OverflowError):
                pass  # refused at the call; never let one point end the writer
        _append_locked(self._file(), "".join(lines).encode())

    def _flush_every_second(self):
        while True:
            time.sleep(FLUSH_SECONDS)
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - a full disk, anything: the next flush tries again
                pass


_writer = _Writer()
atexit.register(_writer.flush)
_rank = rank()  # the launcher's variables do not change during a run


def _valid_name(name):
    return (isinstance(name, str) and 0 < len(name) <= 64 and name[0].isalpha()
            and all(c.isalnum() or c in "_.-/" for c in name))


def _line(name, value, r, now, step, epoch, phase):
    point = {"name": name, "value": value, "rank": r, "time": round(now, 3)}
    if step is not None:
        point["step"] = int(step)
    if epoch is not None:
        point["epoch"] = int(epoch)
    if phase is not None:
        point["phase"] = str(phase)
    return json.dumps(point, separators=(",", ":")) + "\n"


_checked_names = set()


def _whole(what, v):
    """A step or epoch as an int: a whole, finite number (numpy's too), else an error
    at the call rather than a lost writer later."""
    if v is None:
        return None
    if isinstance(v, bool):
        raise TypeError(f"{what} must be a whole number, got {v!r}")
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a whole number, got {v!r}") from None
    if not math.isfinite(f) or f != int(f) or f < 0:
        raise ValueError(f"{what} must be a whole number of 0 or more, got {v!r}")
    return int(f)


def log(name=None, value=None, step=None, epoch=None, phase=None, **values):
    """Records one metric (`log("loss", 0.31, step=120)`) or several at once
    (`log(loss=0.31, acc=0.9, step=120)`); `epoch` and `phase` ("train", "val") are
    optional. Cheap enough for every batch: it only appends to a buffer."""
    if name is not None:
        values = {name: value, **values}
    step, epoch = _whole("step", step), _whole("epoch", epoch)
    if phase is not None and not isinstance(phase, str):
        raise TypeError(f"phase must be a string such as 'train', got {phase!r}")
    now = time.time()
    r = _rank
    points = []
    for key, v in values.items():
        if key not in _checked_names:
            if not _valid_name(key):
                raise ValueError(f"metric name {key!r}: letters, digits, _ . - /, starting with a letter, at most 64")
            _checked_names.add(key)
        v = float(v)
        if not math.isfinite(v):
            continue  # NaN and infinities are not plotted; a diverging loss shows as a gap
        points.append((key, v, r, now, step, epoch, phase))
    _writer.add(points)


def flush():
    """Writes what is buffered now (it happens by itself every second and at exit)."""
    _writer.flush()


__all__ = ["log", "flush", "rank"]
