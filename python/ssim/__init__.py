"""ssim: the data client of ssim experiments.

    import ssim
    client = ssim.Client()            # SSDB / SSDB_PASSWORD from the environment
    client.put_tensor("field", numpy_array)
    back = client.get_tensor("field")

`ssim.ml` has the producer/trainer helpers (Uploader, Downloader). The stored format
is lib/client/WIRE_FORMAT.md in the ssim repository.
"""
from ._ssim import (  # noqa: F401
    AuthError,
    Client,
    ClientError,
    ConnectionError,
    Dataset,
    KeyNotFound,
    TypeMismatch,
)



def _from_experiment(path):
    """A client of the database of the experiment at `path` (its directory), as
    `ssim env` prints it: for a notebook or a script that ssim did not start."""
    import os

    state = os.path.join(os.fspath(path), ".ssim")

    def read(name):
        try:
            with open(os.path.join(state, name)) as f:
                return f.read().strip()
        except FileNotFoundError:
            return ""

    address = read("ssdb")
    if not address:
        raise ConnectionError(f"no database address in {state} (has the experiment run?)")
    password = read("db_password")
    if not password and read("db_password_file"):
        with open(read("db_password_file")) as f:
            password = f.read().strip()
    return Client(address, password)


Client.from_experiment = staticmethod(_from_experiment)

__all__ = ["Client", "Dataset", "ClientError", "ConnectionError", "AuthError", "KeyNotFound", "TypeMismatch"]
