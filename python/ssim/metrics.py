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
import signal
import stat
import sys
import threading
import time

from ._rank import rank_info

FLUSH_SECONDS = 1.0


def rank():
    """This process's rank (0 when alone): RANK, set by ssim, else its launcher's."""
    return rank_info()[0]


def _open_for_append(path):
    """The metrics file, never through a link another user planted (a shared working
    folder outside a run): a link of one's own is followed, any other refused, and a link
    that appears after the look is not followed either."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        if st.st_uid != os.getuid():
            raise PermissionError(f"{path} is a link another user made: not followed")
        return os.open(path, flags, 0o644)
    return os.open(path, flags | os.O_NOFOLLOW, 0o644)


def _append_locked(path, data):
    """One write of whole lines, appended under an exclusive flock of the file (a kill
    between two leaves no torn line but the last, which readers skip). ssim thins a file
    past its bound by renaming a copy over it under the same lock: once locked, a file the
    path no longer names is the old one, and the lines go to the new one instead. A write
    the disk refuses half-way is cut back to where it began: never a torn line."""
    while True:  # another turn only when ssim replaced the file meanwhile (rare)
        fd = _open_for_append(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                began = os.fstat(fd).st_size
                view = memoryview(data)
                try:
                    while view:
                        view = view[os.write(fd, view):]
                except OSError:
                    try:
                        os.ftruncate(fd, began)
                    except OSError:
                        pass
                    raise
                return
        finally:
            os.close(fd)


# Points kept for a later try when the disk refuses them, at most (then the oldest go,
# and the loss is said at exit).
MAX_BACKLOG = 1_000_000


class _Writer:
    """Buffers points and writes them every second from a thread of its own, at exit and
    on SIGTERM. One flush at a time: the one at exit waits for the thread's, so no point
    taken by the thread is lost when the interpreter ends."""

    def __init__(self):
        self._reset()

    def _reset(self):
        self.lock = threading.RLock()      # the buffer
        self.writing = threading.RLock()   # one flush at a time
        self.writer_thread = None          # the thread inside a flush now
        self.pending = []
        self.pid = None
        self.thread = None
        self.dropped = 0
        self.error = None
        self.terminate_after = None        # a signal that came during this thread's flush

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
                _flush_on_sigterm()
            self.pending.extend(points)

    def flush(self):
        with self.writing:
            self.writer_thread = threading.get_ident()
            try:
                self._flush_locked()
            finally:
                self.writer_thread = None
            sig, self.terminate_after = self.terminate_after, None
        if sig is not None:
            _end_by(sig)

    def _flush_locked(self):
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
        try:
            _append_locked(self._file(), "".join(lines).encode())
            self.error = None
        except OSError as e:  # a full disk: kept for the next try, and said at exit if it stays
            self.error = e
            with self.lock:
                self.pending[:0] = points
                extra = len(self.pending) - MAX_BACKLOG
                if extra > 0:
                    del self.pending[:extra]
                    self.dropped += extra
            raise

    def _flush_every_second(self):
        while True:
            time.sleep(FLUSH_SECONDS)
            try:
                self.flush()
            except Exception:  # noqa: BLE001 - a full disk, anything: the next flush tries again
                pass

    def flush_at_exit(self):
        try:
            self.flush()
        except Exception:  # noqa: BLE001 - said below
            pass
        lost = len(self.pending) + self.dropped
        if lost:
            said = (f"{lost} points could not be written to {self._file()}: "
                    f"{self.error or 'the disk refused them'}")
            sys.stderr.write(f"ssim.metrics: {said}\n")
            sys.stderr.flush()
            _note_loss(self._file(), said)


def _note_loss(metrics_file, said):
    """Leaves `metrics.RANK.lost` beside the file, for ssim to say in the entity's note, in
    ssim.log and at the end of the run (docs/metrics.md). On a full disk the file is
    often still made, if empty: ssim then says that points were lost, without the count."""
    path = metrics_file[:-len(".ndjson")] + ".lost"
    try:
        fd = _open_for_append(path)  # never through another user's link
    except OSError:
        return
    try:
        os.ftruncate(fd, 0)
        os.write(fd, (said + "\n").encode())
    except OSError:
        pass
    finally:
        os.close(fd)


def _end_by(sig):
    """Ends the process as `sig` would have, once the points are written."""
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)


def _on_sigterm(sig, frame):
    if _writer.writer_thread == threading.get_ident():
        _writer.terminate_after = sig  # this thread is inside a flush: it ends the process after
        return
    _writer.flush_at_exit()
    _end_by(sig)


def _flush_on_sigterm():
    """`ssim stop` sends SIGTERM: the points are written before the process ends, as it
    would have ended (killed by SIGTERM). Only where nobody set a handler of their own,
    and only from the main thread (where Python lets one be set)."""
    try:
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread: left as it is
        pass


_writer = _Writer()
atexit.register(_writer.flush_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_writer._reset)  # a lock held by a thread the child lacks
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
