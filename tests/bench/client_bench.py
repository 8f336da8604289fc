"""Benchmark, Python side: the ssim module and redis-py (python3-redis)
storing numpy bytes, against the same server.   client_bench.py PORT"""
import sys
import time

import numpy as np
import redis

import ssim


def timed(f, reps):
    """Best of three rounds of `reps` calls (the server shares the machine's cores)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        best = min(best, time.perf_counter() - t0)
    return best


def row(what, nbytes, put_s, get_s, reps):
    print(f"{what:<22} {nbytes >> 10:8d} KiB  put {reps * nbytes / put_s / 1e9:7.2f} GB/s  get {reps * nbytes / get_s / 1e9:7.2f} GB/s")


def main():
    port = int(sys.argv[1])
    c = ssim.Client(f"127.0.0.1:{port}")
    r = redis.Redis(port=port)
    small = np.ones(1024, dtype=np.uint8)
    items = [(f"p{i}", small) for i in range(1000)]
    names = [n for n, _ in items]
    n = 20
    put = timed(lambda: c.put_tensors(items), n)
    get = timed(lambda: c.get_tensors(names), n)
    print(f"{'ssim Python':<22} {1:8d} KiB  put {n * 1000 / put:7.0f} ops/s  get {n * 1000 / get:7.0f} ops/s  (pipelined, 1000 per batch)")

    def rp_put():
        p = r.pipeline(transaction=False)
        for name in names:
            p.set(name, small.tobytes())
        p.execute()

    def rp_get():
        p = r.pipeline(transaction=False)
        for name in names:
            p.get(name)
        [np.frombuffer(b, dtype=np.uint8) for b in p.execute()]

    put, get = timed(rp_put, n), timed(rp_get, n)
    print(f"{'redis-py':<22} {1:8d} KiB  put {n * 1000 / put:7.0f} ops/s  get {n * 1000 / get:7.0f} ops/s  (pipelined, 1000 per batch)")

    for mib in (1, 16, 64):
        x = np.random.default_rng(0).random(mib * 131072)
        out = np.empty_like(x)
        reps = 200 if mib == 1 else 20 if mib == 16 else 6
        put = timed(lambda: c.put_tensor("t", x), reps)  # each put timed before its get
        row("ssim Python (unpack)", x.nbytes, put, timed(lambda: c.unpack_tensor("t", out), reps), reps)
        row("ssim Python (get, new)", x.nbytes, put, timed(lambda: c.get_tensor("t"), reps), reps)
        put = timed(lambda: r.set("r", x.tobytes()), reps)
        row("redis-py", x.nbytes, put, timed(lambda: np.frombuffer(r.get("r"), dtype=x.dtype), reps), reps)


if __name__ == "__main__":
    main()
