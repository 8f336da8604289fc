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

__all__ = ["Client", "Dataset", "ClientError", "ConnectionError", "AuthError", "KeyNotFound", "TypeMismatch"]
