"""ssim from Python: define, start, watch and stop experiments (ssim.Experiment), and
exchange tensors with the experiment's database (ssim.Client).

    import ssim
    exp = ssim.Experiment("demo")                     # docs/python.md
    client = ssim.Client()                            # SSDB / SSDB_PASSWORD from the environment
    client.put_tensor("field", numpy_array)
    back = client.get_tensor("field")

`ssim.ml` has the producer/trainer helpers (Uploader, Downloader, a PyTorch dataset).
The stored format is lib/client/WIRE_FORMAT.md in the ssim repository.
"""
import os as _os

from ._ssim import (  # noqa: F401
    AuthError,
    Client,
    ClientError,
    ConnectionError,
    Dataset,
    InferenceError,
    KeyNotFound,
    TypeMismatch,
)
from ._cli import ExperimentError, SsimError, binary, set_binary  # noqa: F401
from .experiment import Database, Ensemble, Entity, Experiment, Model  # noqa: F401
# `import ssim` then `ssim.metrics.log(...)` and `ssim.distributed.launch_info()` work: both
# are light (no torch, no thread until the first point).
from . import distributed, metrics  # noqa: F401,E402


def _read(folder, name):
    try:
        with open(_os.path.join(folder, name)) as f:
            return f.read().strip()
    except FileNotFoundError:
        return ""


def _database_state(path):
    """(running?, what to say) of the experiment's database, from `ssim status`."""
    from . import _cli
    try:
        doc = _cli.run_json(["status", path, "--json"], ok=(0, 1))
    except (FileNotFoundError, SsimError):
        return None, ""
    shards = [e for e in doc["entities"] if e["type"] == "database"]
    if not shards or all(e["status"] == "running" for e in shards):
        return True, ""
    return False, (f"the database of experiment {doc['experiment']} is not running ({shards[0]['status']}): it "
                   "stops when the run ends unless the file says `persist: true`, and `ssim run FILE --resume` "
                   "(or Experiment.start) starts it again")


def _from_experiment(path):
    """A client of the database of the experiment at `path` (its directory, or the YAML
    file it was run from), as `ssim env` prints it: for a notebook or a script that ssim
    did not start."""
    path = _os.fspath(path)
    if _os.path.isfile(path):
        from . import _cli
        path = _cli.run_json(["status", path, "--json"], ok=(0, 1))["path"]
    state = _os.path.join(path, ".ssim")
    address = _read(state, "ssdb")
    if not address:
        raise ConnectionError(f"no database address in {state} (has the experiment run, and has it a database?)")
    running, why = _database_state(path)
    if running is False:
        raise ConnectionError(why)
    password = _read(state, "db_password")
    if not password and _read(state, "db_password_file"):
        with open(_read(state, "db_password_file")) as f:
            password = f.read().strip()
    return Client(address, password)


Client.from_experiment = staticmethod(_from_experiment)


def _set_model(self, name, model, backend="TORCH", device="CPU", batch_size=0, min_batch_size=0,
               min_batch_timeout=0, tag="", inputs=None, outputs=None):
    """Stores a TorchScript model under `name`: its bytes (torch.jit.save), or a
    torch.jit.ScriptModule (saved here). `device` is CPU, GPU or GPU:n; batch_size > 0
    batches calls from many callers, waiting up to min_batch_timeout ms for
    min_batch_size rows (docs/inference.md)."""
    if hasattr(model, "save") and hasattr(model, "forward") and not isinstance(model, (bytes, bytearray)):
        import io
        import torch
        buffer = io.BytesIO()
        torch.jit.save(model, buffer)
        model = buffer.getvalue()
    self._set_model(name, bytes(model), backend, device, batch_size, min_batch_size, min_batch_timeout, tag,
                    list(inputs or []), list(outputs or []))


def _set_function(self, name, function, device="CPU"):
    """Stores a Python function written in TorchScript's subset (its source, read with
    inspect) under `name`, as a script whose one function has the function's name."""
    import inspect
    import textwrap
    self.set_script(name, textwrap.dedent(inspect.getsource(function)), device)


Client.set_model = _set_model
Client.set_function = _set_function

__all__ = ["Client", "Dataset", "ClientError", "ConnectionError", "AuthError", "KeyNotFound", "TypeMismatch",
           "InferenceError",
           "Experiment", "Model", "Ensemble", "Database", "Entity", "ExperimentError", "SsimError",
           "binary", "set_binary"]
