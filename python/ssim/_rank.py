"""Which rank am I: the one answer the C, C++ and Fortran clients give too
(lib/client/rank_info.cpp; both are tested on tests/fixtures/rank-env-cases.json).
ssim sets RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE for every rank before the
program starts, so those come first; without them, the rank launcher's own variables."""
import os

# (rank, world size, local rank, local size) variables of each launcher, in order.
_LAUNCHERS = (
    ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"),  # ssim itself, torchrun
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("PALS_RANKID", "PMI_SIZE", "PALS_LOCAL_RANKID", "PMI_LOCAL_SIZE"),  # Cray PALS
    ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),  # MPICH's Hydra
    ("SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID", ""),
    ("JSM_NAMESPACE_RANK", "JSM_NAMESPACE_SIZE", "JSM_NAMESPACE_LOCAL_RANK", "JSM_NAMESPACE_LOCAL_SIZE"),
    ("ALPS_APP_PE", "PMI_SIZE", "", ""),
    ("PMIX_RANK", "", "", ""),  # last: it says no size (srun --mpi=pmix sets it beside SLURM_PROCID)
)


def _int(env, name):
    value = env.get(name, "") if name else ""
    return int(value) if value.isdigit() and int(value) <= 1 << 24 else None


def slurm_tasks_on_node(per_node, node):
    """Slurm's "2(x3),1" at node `node`; 0 when out of range."""
    at = 0
    for part in per_node.split(","):
        count, _, times = part.partition("(x")
        if not count.isdigit() or (times and not times.rstrip(")").isdigit()):
            return 0
        n = int(times.rstrip(")")) if times else 1
        if node < at + n:
            return int(count)
        at += n
    return 0


def rank_info(env=None):
    """(rank, world_size, local_rank, local_world_size, source variable or "")."""
    env = os.environ if env is None else env
    rank, size, local, local_size, source = 0, 0, -1, 0, ""
    for names in _LAUNCHERS:
        r = _int(env, names[0])
        if r is None:
            continue
        source, rank = names[0], r
        size = _int(env, names[1]) or 0
        local = _int(env, names[2])
        local = -1 if local is None else local
        local_size = _int(env, names[3]) or 0
        if source == "SLURM_PROCID":
            size = size or _int(env, "SLURM_NTASKS") or 0
            if "SLURM_STEP_TASKS_PER_NODE" in env:
                local_size = slurm_tasks_on_node(env["SLURM_STEP_TASKS_PER_NODE"], _int(env, "SLURM_NODEID") or 0)
        if local < 0:
            pl = _int(env, "PMI_LOCAL_RANK")
            local = -1 if pl is None else pl
        local_size = local_size or _int(env, "PMI_LOCAL_SIZE") or 0
        break
    if size <= rank:
        size = rank + 1
    if local < 0:
        local = 0 if not source or size == 1 else rank
    if local_size <= local:
        local_size = size if local == rank else local + 1
    return rank, size, local, local_size, source
