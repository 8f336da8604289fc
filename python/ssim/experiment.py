"""The experiment API: the experiment file's keys as Python calls, run by the ssim engine.

    exp = ssim.Experiment("online-training", launcher="local")
    db = exp.create_database(port="auto")
    exp.start(db)                                     # the database, and the run, start
    producers = exp.create_ensemble("producers", exe="python3", args=["producer.py"],
                                    replicas=2, run={"ntasks": 2}, key_prefixing=True)
    exp.start(producers, block=False)
    trainer = exp.create_model("trainer", exe="python3", args=["trainer.py"], incoming=[producers])
    exp.start(trainer)                                # blocks until it has ended
    print(exp.summary())
    exp.stop()

A YAML file and a script are two spellings of one experiment: `exp.to_yaml()` gives the
file, `Experiment.from_yaml(path)` reads one. The engine runs in a process of its own
(`ssim run --open --detach`): the notebook only drives it, `ssim status` and `ssim stop`
see the same experiment from any shell, and `Experiment.attach(path)` picks it up again
after a kernel restart. Reference: docs/python.md.
"""
import copy
import os
import tempfile
import time

from . import _cli, _display, _yaml
from ._cli import ExperimentError, SsimError

HEADER = "# Written by ssim.Experiment: edit the Python that made it, or copy this file and run it with ssim run.\n"
ENDED = ("completed", "failed", "cancelled")


class Entity:
    """A model, an ensemble or the database of an experiment; `spec` holds its keys as
    the experiment file spells them."""

    kind = "model"

    def __init__(self, name, spec):
        self.name = name
        self.spec = spec

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class Model(Entity):
    kind = "model"


class Ensemble(Entity):
    kind = "ensemble"


class Database(Entity):
    kind = "database"


def _names(values):
    out = []
    for v in values or ():
        out.append(v.name if isinstance(v, Entity) else str(v))
    return out


def _remove_quietly(path, folder=False):
    try:
        (os.rmdir if folder else os.unlink)(path)
    except OSError:
        pass


def _absolute(path, base):
    path = os.path.expanduser(os.fspath(path))
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(base, path))


def _anchor_paths(entry, base):
    """Paths the experiment file reads relative to its own folder, made absolute from `base`
    (where the script runs, or the folder of the file read), so the written file can live
    anywhere."""
    exe = entry.get("exe")
    if isinstance(exe, str) and "/" in exe and "$(" not in exe:
        entry["exe"] = _absolute(exe, base)
    files = entry.get("files")
    if isinstance(files, dict):
        for key in ("copy", "symlink", "configure"):
            if isinstance(files.get(key), list):
                files[key] = [_absolute(p, base) if isinstance(p, str) else p for p in files[key]]
    if "container" in entry:
        entry["container"] = _anchor_container(entry["container"], base)
    return entry


def _anchor_container(container, base):
    """A `container:` value with its image path (./img: a name never starts with '.') and
    its bind sources made absolute from `base`."""
    if isinstance(container, str) and container.startswith("."):
        return _absolute(container, base)
    if isinstance(container, dict):
        container = dict(container)
        image = container.get("image")
        if isinstance(image, str) and image.startswith("."):
            container["image"] = _absolute(image, base)
        if isinstance(container.get("bind"), list):
            container["bind"] = [_absolute(b, base) if isinstance(b, str) and not b.startswith("/") else b
                                 for b in container["bind"]]
    return container


class Experiment:
    """An experiment: a database, models and ensembles, as in the experiment file.

    `name` and `path` (default ./NAME) are `experiment.name` and `experiment.path`;
    `launcher` is `auto`, `local`, `slurm`, `pbs` or `lsf`; other keyword arguments are
    further `experiment:` keys (env, max_running, oversubscribe, setup, python, container).
    `overwrite=True` replaces an earlier experiment in the same folder when it starts.
    The file is written beside the experiment folder, as PATH.yaml (`file=` chooses).
    """

    def __init__(self, name, path=None, launcher="auto", overwrite=False, file=None, **experiment_keys):
        self.name = name
        self.path = _absolute(path if path is not None else name, os.getcwd())
        self.file = _absolute(file, os.getcwd()) if file else self.path + ".yaml"
        self.overwrite = overwrite
        self._experiment = {"name": name, "path": self.path, "launcher": launcher, **experiment_keys}
        if "container" in self._experiment:
            self._experiment["container"] = _anchor_container(self._experiment["container"], os.getcwd())
        self._database = None
        self._entities = {}  # name -> Model | Ensemble, in the order they were made
        self._started = False
        self._extra = {}  # top-level keys this API has no call for (allocation:, batch:), kept as read

    # --- making entities -------------------------------------------------------------

    def create_database(self, port=6780, **keys):
        """The experiment's database (`orchestrator:` keys: port, shards, interface, binary,
        config, password, persist, snapshot, inference, address, password_file, run, batch,
        container). It
        starts with the first `start` and stops with `stop()`."""
        if self._database is not None:
            raise ExperimentError("the experiment already has a database", 2)
        if self._started:
            raise ExperimentError("a database cannot be added once the experiment has started; create it first", 2)
        spec = {"port": port, **keys}
        if "password_file" in spec:
            spec["password_file"] = _absolute(spec["password_file"], os.getcwd())
        if "container" in spec:
            spec["container"] = _anchor_container(spec["container"], os.getcwd())
        self._database = Database("orchestrator", spec)
        return self._database

    def create_model(self, name, exe, args=(), **keys):
        """A model: one program (`models:` keys: env, params, run, files, incoming, after,
        after_any, key_prefixing, batch, setup, colocated_db, container, retries). Entities may be
        given by object or name in incoming/after/after_any."""
        return self._add(Model(name, self._entry(name, exe, args, keys)))

    def create_ensemble(self, name, exe, args=(), **keys):
        """An ensemble: one program, many members (`ensembles:` keys: the model keys and
        params, replicas, strategy, samples, seed, after_each). Members are NAME_0..."""
        return self._add(Ensemble(name, self._entry(name, exe, args, keys)))

    def _entry(self, name, exe, args, keys):
        entry = {"name": name, "exe": exe}
        if args:
            entry["args"] = [str(a) for a in args]
        for key in ("incoming", "after", "after_any", "after_each"):
            if key in keys:
                keys[key] = _names(keys[key])
        entry.update(copy.deepcopy(keys))
        return _anchor_paths(entry, os.getcwd())

    def _add(self, entity):
        if entity.name in self._entities:
            raise ExperimentError(f"the experiment already has an entity named {entity.name}", 2)
        self._entities[entity.name] = entity
        return entity

    def __getitem__(self, name):
        if self._database is not None and name == self._database.name:
            return self._database
        return self._entities[name]

    @property
    def entities(self):
        return list(self._entities.values())

    # --- the file ----------------------------------------------------------------------

    def to_dict(self):
        doc = {"experiment": dict(self._experiment)}
        if self._database is not None:
            doc["orchestrator"] = dict(self._database.spec)
        # Two lists, in the order their first entity was made (ssim runs entities in file
        # order when they compete for CPUs).
        for e in self._entities.values():
            section = "models" if isinstance(e, Model) else "ensembles"
            doc.setdefault(section, []).append(e.spec)
        doc.update(self._extra)
        return copy.deepcopy(doc)

    def to_yaml(self, file=None):
        """The experiment file's text; with `file`, also writes it there."""
        text = _yaml.dump(self.to_dict(), HEADER)
        if file is not None:
            with open(file, "w") as f:
                f.write(text)
        return text

    @classmethod
    def from_yaml(cls, file, launcher=None):
        """The experiment of an experiment file (checked first: a bad file raises
        ExperimentError naming FILE:LINE:COL and the field)."""
        file = os.path.abspath(os.fspath(file))
        verdict = _cli.run_json(["validate", file, "--json", "--document", "--open"], ok=(0, 2, 3))
        if not verdict.get("ok"):
            raise (ExperimentError if verdict.get("exit_code") == 2 else SsimError)(
                verdict.get("error", "invalid"), verdict.get("exit_code", 2))
        return cls._from_document(verdict["document"], file, verdict.get("path"), launcher)

    @classmethod
    def _from_document(cls, doc, file, path, launcher=None):
        base = os.path.dirname(file)
        keys = dict(doc.get("experiment") or {})
        name = keys.pop("name")
        keys.pop("path", None)
        keys["launcher"] = launcher or keys.get("launcher", "auto")
        exp = cls(name, path=path, **keys)
        exp._read_from = file
        if doc.get("orchestrator") is not None:
            spec = dict(doc["orchestrator"])
            if "password_file" in spec:
                spec["password_file"] = _absolute(spec["password_file"], base)
            exp._database = Database("orchestrator", spec)
        for section in doc:  # as the file has them: its order is the order entities start in
            kind = {"models": Model, "ensembles": Ensemble}.get(section)
            for entry in (doc[section] or []) if kind else []:
                exp._add(kind(entry["name"], _anchor_paths(dict(entry), base)))
        exp._extra = {k: v for k, v in doc.items()
                      if k not in ("experiment", "orchestrator", "models", "ensembles")}
        return exp

    def validate(self):
        """Checks the experiment as `ssim validate` does; raises ExperimentError (the
        line of the written file, and the field) when something is wrong. The file is
        written only once it passes: a refusal leaves nothing on disk."""
        return self._write()[1]

    def _write(self):
        """Writes the experiment file once ssim accepts it: it is checked from a temporary
        file beside the final one (relative paths and error lines read the same), so a
        refusal leaves no file and no folder behind. Returns (the earlier text or None,
        the verdict), so that a later refusal can put the earlier file back."""
        earlier = None
        if os.path.exists(self.file):
            with open(self.file) as f:
                earlier = f.read()
            if not earlier.startswith(HEADER.splitlines()[0] + "\n"):
                raise ExperimentError(
                    f"{self.file} exists and was not written by ssim.Experiment: choose another file= "
                    "(or remove it)", 2)
        folder = os.path.dirname(self.file)
        made = []  # the folders made here, removed again on a refusal
        d = folder
        while d and not os.path.exists(d):
            made.append(d)
            d = os.path.dirname(d)
        os.makedirs(folder, exist_ok=True)
        fd, trial = tempfile.mkstemp(prefix="." + os.path.basename(self.file) + ".", suffix=".check", dir=folder)
        try:
            with os.fdopen(fd, "w") as f:
                f.write(self.to_yaml())
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(trial, 0o666 & ~umask)  # as open() would have made it, not mkstemp's 0600
            verdict = _cli.run_json(["validate", trial, "--json", "--open"], ok=(0, 2, 3))
            if not verdict.get("ok"):
                message = verdict.get("error", "invalid").replace(trial, self.file)
                raise (ExperimentError if verdict.get("exit_code") == 2 else SsimError)(
                    message, verdict.get("exit_code", 2))
            os.replace(trial, self.file)
        except BaseException:
            _remove_quietly(trial)
            for d in made:
                _remove_quietly(d, folder=True)
            raise
        return earlier, verdict

    def _put_back(self, earlier):
        """A refused start changes nothing on disk: the file is as it was before."""
        if earlier is None:
            _remove_quietly(self.file)
        else:
            with open(self.file, "w") as f:
                f.write(earlier)

    # --- running -----------------------------------------------------------------------

    def _by_name(self, entities):
        """Entities given as objects or by name (an unknown name is bad input)."""
        out = []
        for e in entities:
            if isinstance(e, str):
                if self._database is not None and e == self._database.name:
                    e = self._database
                elif e in self._entities:
                    e = self._entities[e]
                else:
                    known = ", ".join(self._entities) or "none yet"
                    raise ExperimentError(f"start: no entity named {e!r} in experiment {self.name} (it has: {known})", 2)
            out.append(e)
        return out

    def start(self, *entities, block=True, timeout=None):
        """Starts the entities (all of them when none are given; objects or names). The
        first call starts the run (its database first, when there is one); entities not
        named wait until a later `start` names them, and entities made after the first
        call join the run when they are started. `block=True` waits until they have ended
        (see `wait`). A refused start changes nothing on disk."""
        entities = self._by_name(entities)
        names = [e.name for e in entities if not isinstance(e, Database)]
        if entities and not names and self._started:
            return self.poll()  # the database runs with the run
        earlier, _ = self._write()
        try:
            if not self._started:
                args = ["run", self.file, "--detach", "--open"]
                if entities:
                    args += ["--only", ",".join(names)]
                if self.overwrite:
                    args.append("--overwrite")
                _cli.run(args)
                self._started = True
            else:
                _cli.run(["start", self.path, *(names or list(self._entities))])
        except SsimError as e:
            self._put_back(earlier)
            # In Python the option is an argument: say it as one.
            e.message = e.message.replace("--overwrite", "overwrite=True")
            e.args = (e.message,)
            raise
        if block and (names or not entities):
            return self.wait(*(names or list(self._entities)), timeout=timeout)
        return self.poll()

    def _status_document(self):
        return _cli.run_json(["status", self.path, "--json"], ok=(0, 1))

    def poll(self):
        """{entity name: status} for every entity (members by their own names), now."""
        return {e["name"]: e["status"] for e in self._status_document()["entities"]}

    def get_status(self, *entities):
        """The statuses of the named entities (an ensemble: each member's), as a list."""
        names = _names(entities)
        rows = self._status_document()["entities"]
        return [r["status"] for r in rows if r["name"] in names or r.get("ensemble") in names]

    def wait(self, *entities, timeout=None, interval=0.2, progress=True):
        """Waits until the entities (all when none are named; an ensemble: every member)
        have ended; returns {name: status}. Raises TimeoutError after `timeout` seconds,
        and ExperimentError for an entity nobody started."""
        names = set(_names(entities))
        deadline = None if timeout is None else time.monotonic() + timeout
        shown = _display.Progress(self.name) if progress else None
        while True:
            doc = self._status_document()
            rows = [r for r in doc["entities"] if r["type"] != "database" and
                    (not names or r["name"] in names or r.get("ensemble") in names)]
            if names and not rows:
                raise ExperimentError(f"no entity {', '.join(sorted(names))} in experiment {self.name}", 2)
            if shown:
                shown.update(rows)
            waiting = [r for r in rows if r["status"] not in ENDED]
            held = [r["name"] for r in waiting if r.get("held")]
            if held and all(r.get("held") for r in waiting):
                raise ExperimentError(f"{', '.join(held[:5])} not started: give it to start() first", 2)
            if not waiting:
                if shown:
                    shown.close(rows)
                return {r["name"]: r["status"] for r in rows}
            if doc.get("finished"):
                raise SsimError(f"the run of {self.name} has ended with {len(waiting)} entities not ended", 3)
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{len(waiting)} of {len(rows)} entities still running after {timeout} s")
            time.sleep(interval)

    def stop(self, *entities):
        """Stops the entities (an ensemble: its members), or with none named (or the
        database) everything, the database last; the run then ends."""
        names = [e for e in _names(entities)]
        if self._database is not None and self._database.name in names:
            names = []
        doc = _cli.run_json(["stop", self.path, *names, "--json"])
        return {e["name"]: e["status"] for e in doc["entities"]}

    def status(self, as_frame=None):
        """One row (a dict, the fields of `ssim status --json`) per entity; a pandas
        DataFrame when pandas is installed (as_frame=None) or asked for (True)."""
        return _display.rows_or_frame(self._status_document()["entities"], as_frame)

    def summary(self):
        """`ssim status`'s table, as text."""
        return _cli.run(["status", self.path], ok=(0, 1)).stdout

    def logs(self, entity, stderr=False, tail=None):
        """What the entity printed (its stdout, or stderr); `tail`: the last N lines."""
        name = entity.name if isinstance(entity, Entity) else str(entity)
        args = ["logs", self.path, name, "--json"] + (["--stderr"] if stderr else [])
        data = _cli.run_json(args)["data"]
        if tail is not None:
            lines = data.splitlines(keepends=True)
            data = "".join(lines[-tail:]) if tail > 0 else ""
        return data

    def metrics(self, *entities, as_frame=None):
        """Every metric point the entities (all when none are named) reported with
        ssim.metrics.log or ssim:metric lines (`ssim metrics --json`): entity, rank,
        metric, value, step, epoch, phase, time; a DataFrame when pandas is there."""
        return _display.rows_or_frame(_cli.run_json(["metrics", self.path, *_names(entities), "--json"]), as_frame)

    def report(self, path):
        """Writes the experiment's HTML report (`ssim report`) to `path`; returns it."""
        path = os.path.abspath(os.fspath(path))
        _cli.run(["report", self.path, "-o", path])
        return path

    def client(self):
        """A data client connected to this experiment's database."""
        from . import Client
        return Client.from_experiment(self.path)

    @classmethod
    def attach(cls, path):
        """The experiment at `path` (its folder or file), running or finished, as this API
        sees it: after a kernel restart, or for one started with `ssim run`."""
        doc = _cli.run_json(["status", os.fspath(path), "--json"], ok=(0, 1))
        file = doc.get("file") or ""
        if file and os.path.isfile(file):
            exp = cls.from_yaml(file, launcher=doc.get("launcher"))
            exp.file = file
        else:
            exp = cls(doc["experiment"], path=doc["path"], launcher=doc.get("launcher", "auto"))
        exp.path = doc["path"]
        exp._started = True
        return exp

    # --- display -----------------------------------------------------------------------

    def __repr__(self):
        return f"Experiment({self.name!r}, path={self.path!r}, entities={list(self._entities)!r})"

    def _repr_html_(self):
        try:
            rows = self._status_document()["entities"] if self._started else []
        except (SsimError, FileNotFoundError):
            rows = []
        return _display.experiment_html(self, rows)
