"""Streaming producer, Python variant (mpi4py): every rank uploads batches of samples
drawn from a Gaussian centred at its rank id, labelled with the rank id."""
import argparse
import time

import numpy as np
from mpi4py import MPI

from ssim.ml import Uploader


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batches", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--features", type=int, default=16)
    p.add_argument("--interval", type=float, default=0.2)
    args = p.parse_args()
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    up = Uploader(num_classes=size, rank=rank, world_size=size)
    if rank == 0:
        up.publish_info()
    rng = np.random.default_rng(1234 + rank)
    for _ in range(args.batches):
        samples = (rank + rng.standard_normal((args.batch_size, args.features))).astype(np.float32)
        targets = np.full(args.batch_size, rank, dtype=np.int64)
        up.put_batch(samples, targets)
        time.sleep(args.interval)
    print(f"rank {rank} of {size} uploaded {args.batches} batches of {args.batch_size} samples", flush=True)


if __name__ == "__main__":
    main()
