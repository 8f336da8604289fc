"""One SmartRedis program's timings (the same against RedisAI and against ssim's door):
put_tensor and get_tensor of 1 KiB, 1 MiB and 64 MiB float32 tensors, and run_model of
a small TorchScript model. Prints one line per measurement: WHAT MEDIAN_US.

    smartredis_bench.py MODEL_FILE      (SSDB and SR_DB_TYPE as SmartRedis reads them)"""
import statistics
import sys
import time

import numpy as np
from smartredis import Client


def median_us(call, reps):
    call()  # warm: connections, first allocation
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


client = Client(logger_name="bench")
for label, size, reps in (("1KiB", 1 << 10, 2000), ("1MiB", 1 << 20, 100), ("64MiB", 64 << 20, 8)):
    data = np.random.default_rng(0).random(size // 4, dtype=np.float32)
    print(f"put {label} {median_us(lambda: client.put_tensor('bench_' + label, data), reps):.1f}", flush=True)
    print(f"get {label} {median_us(lambda: client.get_tensor('bench_' + label), reps):.1f}", flush=True)
client.set_model("bench_model", open(sys.argv[1], "rb").read(), "TORCH", "CPU")
client.put_tensor("bench_in", np.ones((2, 4), dtype=np.float32))
print(f"run_model small {median_us(lambda: client.run_model('bench_model', ['bench_in'], ['bench_out']), 1000):.1f}", flush=True)
