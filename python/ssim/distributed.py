"""Rank, world size and rendezvous address of a trainer rank. ssim sets RANK,
WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT for every rank
before the program starts, on every launcher (docs/distributed.md), so plain
`init_process_group(init_method="env://")` works; these functions read the same one
answer (ssim._rank, shared with the C, C++ and Fortran clients), falling back to the rank
launcher's own variables where an entity turned ssim's off (`run: {rank_env: false}`).
And a one-call torch.distributed set-up on top: gloo on CPU, nccl with one GPU per local
rank."""
import os
import re
import socket

from ._rank import rank_info


def _first_host(nodelist):
    """The first host of a Slurm hostlist such as "n[01-03,7],gpu5"."""
    m = re.match(r"([^,\[]+)(?:\[([^\]]+)\])?", nodelist)
    if not m:
        return nodelist
    prefix, ranges = m.group(1), m.group(2)
    if not ranges:
        return prefix
    return prefix + ranges.split(",")[0].split("-")[0]


def launch_info():
    """(rank, world_size, local_rank, master_addr, master_port) for this process."""
    env = os.environ
    rank, size, local, _local_size, source = rank_info(env)
    addr = env.get("MASTER_ADDR", "")
    if not addr and source == "SLURM_PROCID":
        # Without ssim's wiring, srun's first node is rank 0's (block distribution).
        addr = _first_host(env.get("SLURM_STEP_NODELIST", env.get("SLURM_JOB_NODELIST", "")))
        if addr and not re.match(r"^\d+\.\d+\.\d+\.\d+$", addr):
            try:
                addr = socket.gethostbyname(addr)
            except OSError:
                pass
    if not addr:
        addr = "127.0.0.1"  # mpirun by hand on one machine; ssim says where rank 0 is
    port = int(env.get("MASTER_PORT", "") or 0) or _default_port()
    return rank, size, local, addr, port


def _default_port():
    # Every rank of one step must agree on it without talking: derive it from what they
    # share. Below Linux's ephemeral ports (32768 and up), which any connection may hold.
    key = os.environ.get("SSIM_EXPERIMENT_ID", "") + os.environ.get("SSIM_ENTITY", "") + os.environ.get("SLURM_STEP_ID", "")
    return 20000 + (sum(key.encode()) * 7919) % 12768


def device_index(local_rank, device_count, env=None):
    """The CUDA device this rank uses. When it was given devices of its own (ssim under
    mpirun sets SSIM_RANK_GPUS; srun --gpus-per-task sets SLURM_GPUS_PER_TASK), its first.
    When the ranks of a node share the node's devices, the one of its local rank; a rank
    with none of its own is an error rather than a device shared with another rank."""
    env = os.environ if env is None else env
    if env.get("SSIM_RANK_GPUS") is not None or env.get("SLURM_GPUS_PER_TASK"):
        return 0
    if local_rank >= device_count:
        raise RuntimeError(
            f"local rank {local_rank} has no GPU of its own: {device_count} visible; "
            "ask for run: {gpus_per_task: 1} so that each rank gets its own")
    return local_rank


def init_torch_distributed():
    """Initialises torch.distributed when there are several ranks. Returns
    (rank, world_size, device): the GPU of this local rank when CUDA is available (nccl),
    the CPU otherwise (gloo)."""
    import torch
    import torch.distributed as dist

    rank, size, local, addr, port = launch_info()
    if torch.cuda.is_available():
        device = torch.device("cuda", device_index(local, torch.cuda.device_count()))
        torch.cuda.set_device(device)
        backend = "nccl"
    else:
        device = torch.device("cpu")
        backend = "gloo"
    if size > 1 and not dist.is_initialized():
        dist.init_process_group(backend, init_method=f"tcp://{addr}:{port}", rank=rank, world_size=size)
    return rank, size, device
