"""Replays a recorded SmartRedis session (tests/fixtures/smartredis/NAME.ndjson.gz)
against SSDB, the SmartRedis door of the entity it runs as: every command the real
client sent, on as many connections as it used, in the recorded order. Writes each
reply as the door sent it to OUT (NDJSON, base64), for the test to compare with
RedisAI's. Standard library only: it stands for a SmartRedis program.

    smartredis_replay.py RECORDING OUT"""
import base64
import gzip
import json
import os
import socket
import sys


def reply_end(buf, i):
    """The end of one complete RESP value at buf[i:], or None."""
    nl = buf.find(b"\r\n", i)
    if nl < 0:
        return None
    kind, line = buf[i:i + 1], buf[i + 1:nl]
    if kind in b"+-:":
        return nl + 2
    if kind == b"$":
        n = int(line)
        end = nl + 2 if n < 0 else nl + 2 + n + 2
        return end if len(buf) >= end else None
    if kind == b"*":
        j = nl + 2
        for _ in range(max(int(line), 0)):
            j = reply_end(buf, j)
            if j is None:
                return None
        return j
    raise ValueError(f"not RESP: {buf[i:i + 40]!r}")


class Connection:
    def __init__(self, address):
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)))
        self.buf = b""

    def call(self, request):
        self.sock.sendall(request)
        while True:
            end = reply_end(self.buf, 0) if self.buf else None
            if end is not None:
                reply, self.buf = self.buf[:end], self.buf[end:]
                return reply
            data = self.sock.recv(1 << 20)
            if not data:
                raise ConnectionError("the door closed the connection")
            self.buf += data


def main():
    recording, out = sys.argv[1], sys.argv[2]
    address = os.environ["SSDB"]
    connections = {}
    with gzip.open(recording, "rt") as f, open(out, "w") as w:
        for line in f:
            exchange = json.loads(line)
            conn = connections.setdefault(exchange["conn"], Connection(address))
            reply = conn.call(base64.b64decode(exchange["send"]))
            w.write(json.dumps({"reply": base64.b64encode(reply).decode()}) + "\n")
    print(f"replayed {recording}")


if __name__ == "__main__":
    main()
