"""The data client against a hostile or broken server (a fake that speaks RESP on
loopback): every malformed tensor reply (bad magic, version, dtype, rank, sizes that
overflow or disagree, a huge chunk count, a chunk of the wrong size, a bulk reply longer
than it says, a bad length) is a clear error within seconds, and the same client then
answers the next calls correctly."""
import os
import socket
import struct
import sys
import threading
import time
import unittest

sys.path.insert(0, os.environ.get("SSIM_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "../../build/python")))
import numpy as np  # noqa: E402
import ssim  # noqa: E402


def header(dtype=1, dims=(3,), chunks=0, chunk_bytes=0, payload=None, magic=b"SSTN", version=1, rank=None):
    size = 8
    for d in dims:
        size *= d
    payload = size if payload is None else payload
    rank = len(dims) if rank is None else rank
    return (magic + bytes([version, dtype, rank, 0]) + struct.pack("<IIQ", chunks, chunk_bytes, payload % 2**64)
            + b"".join(struct.pack("<Q", d % 2**64) for d in dims))


GOOD = header() + np.arange(3.0).tobytes()
VALUES = {
    "good": GOOD,
    "magic": header(magic=b"XXXX") + bytes(24),
    "version": header(version=9) + bytes(24),
    "dtype": header(dtype=99) + bytes(24),
    "rank": header(rank=200),
    "overflow": header(dims=(2**40, 2**40, 2**40), payload=0),
    "payload": header(payload=999) + bytes(24),
    "short": header() + bytes(10),
    "chunks": header(dims=(2**37,), chunks=2**20, chunk_bytes=2**20, payload=2**40),  # 1 TiB to allocate
    "wrongchunk": header(dims=(4,), chunks=2, chunk_bytes=16),
    "{wrongchunk}.c0": bytes(16),
    "{wrongchunk}.c1": bytes(5),
}
RAW = {  # replies whose framing itself is wrong
    "longer": b"$3\r\nabcdefgh\r\n",
    "badlength": b"$12x\r\n",
}


class FakeServer(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    @staticmethod
    def bulk(value):
        return b"$%d\r\n%s\r\n" % (len(value), value)

    def serve(self, conn):
        buf = b""
        with conn:
            while True:
                while True:  # one whole command: *N then N bulk strings
                    parsed = self.parse(buf)
                    if parsed:
                        args, buf = parsed
                        break
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                conn.sendall(self.reply(args))

    @staticmethod
    def parse(buf):
        if not buf.startswith(b"*") or b"\r\n" not in buf:
            return None
        line, rest = buf.split(b"\r\n", 1)
        args = []
        for _ in range(int(line[1:])):
            if b"\r\n" not in rest:
                return None
            length_line, rest = rest.split(b"\r\n", 1)
            n = int(length_line[1:])
            if len(rest) < n + 2:
                return None
            args.append(rest[:n])
            rest = rest[n + 2:]
        return args, rest

    def reply(self, args):
        cmd = args[0].upper()
        if cmd == b"PING":
            return b"+PONG\r\n"
        if cmd == b"INFO":
            return self.bulk(b"# Cluster\r\ncluster_enabled:0\r\n")
        if cmd == b"GET":
            key = args[1].decode()
            if key in RAW:
                return RAW[key]
            return self.bulk(VALUES[key]) if key in VALUES else b"$-1\r\n"
        if cmd == b"EXISTS":
            return b":%d\r\n" % (1 if args[1].decode() in VALUES else 0)
        return b"+OK\r\n"


class HostileReplies(unittest.TestCase):
    def setUp(self):
        self.server = FakeServer()
        self.server.start()
        self.addCleanup(self.server.listener.close)

    def test_each_malformed_reply_is_a_clear_error_and_the_client_stays_usable(self):
        c = ssim.Client(f"127.0.0.1:{self.server.port}", "")
        self.assertEqual(c.get_tensor("good").tolist(), [0.0, 1.0, 2.0])
        for key in ["magic", "version", "dtype", "rank", "overflow", "payload", "short", "chunks", "wrongchunk",
                    "longer", "badlength"]:
            with self.subTest(key=key):
                t0 = time.monotonic()
                with self.assertRaises((ssim.ClientError, MemoryError)) as caught:
                    c.get_tensor(key)
                self.assertLess(time.monotonic() - t0, 10, "an error must not wait for the 30 s timeout")
                self.assertTrue(str(caught.exception), "the error says what is wrong")
                # The same client answers the next calls with their own answers.
                self.assertEqual(c.get_tensor("good").tolist(), [0.0, 1.0, 2.0])
                self.assertFalse(c.tensor_exists("missing"))
                self.assertTrue(c.tensor_exists("good"))


if __name__ == "__main__":
    unittest.main()
