"""Producer and trainer helpers for streaming training data through the database.

A producer rank (a simulation) makes an Uploader and calls put_batch(samples, targets)
as data appears; each batch becomes a dataset appended to a list under the producer's
own key prefix. A trainer rank makes a Downloader: it finds the producers from SSKEYIN,
keeps pulling the batches that appeared since its last look, takes its share when there
are several trainer ranks (batch k of each producer goes to rank k % world_size), and
can be handed to PyTorch as an IterableDataset. torch is imported only when asked for.
"""
import os
import random
import time

import numpy as np

from ._ssim import Client, Dataset, KeyNotFound

INFO_SUFFIX = "_info"


class Uploader:
    """Uploads batches of (samples, targets) from one producer rank."""

    def __init__(self, list_name="training_data", sample_name="samples", target_name="targets",
                 num_classes=None, rank=0, world_size=1, client=None):
        self.list_name = list_name
        self.sample_name = sample_name
        self.target_name = target_name
        self.num_classes = num_classes
        self.rank = rank
        self.world_size = world_size
        self.client = client if client is not None else Client()
        self.batches = 0

    def publish_info(self):
        """Describes the data once per producer (call it from rank 0)."""
        info = Dataset(self.list_name + INFO_SUFFIX)
        info.add_meta_string("sample_name", self.sample_name)
        info.add_meta_string("target_name", self.target_name)
        info.add_meta_scalar("world_size", int(self.world_size))
        if self.num_classes is not None:
            info.add_meta_scalar("num_classes", int(self.num_classes))
        self.client.put_dataset(info)

    def put_batch(self, samples, targets):
        """Stores one batch and appends it to the list; returns its index on this rank."""
        ds = Dataset(f"{self.list_name}_{self.rank}_{self.batches}")
        ds.add_tensor(self.sample_name, np.ascontiguousarray(samples))
        ds.add_tensor(self.target_name, np.ascontiguousarray(targets))
        self.client.append_to_list(self.list_name, ds)
        self.batches += 1
        return self.batches - 1


def _sources_from_env():
    names = [s for s in os.environ.get("SSKEYIN", "").split(",") if s]
    if not names:
        raise RuntimeError("no producers: SSKEYIN is not set (give the trainer `incoming:` in the experiment)")
    return names


class Downloader:
    """Downloads the batches of every producer in `sources` (default: SSKEYIN) for one
    trainer rank out of `world_size`."""

    def __init__(self, list_name="training_data", rank=0, world_size=1, sources=None, client=None,
                 sample_name="samples", target_name="targets"):
        self.list_name = list_name
        self.rank = rank
        self.world_size = world_size
        self.sources = list(sources) if sources is not None else _sources_from_env()
        self.client = client if client is not None else Client()
        self.sample_name = sample_name
        self.target_name = target_name
        self.seen = {s: 0 for s in self.sources}  # list items looked at, per producer
        self.samples = []
        self.targets = []
        self.num_classes = None

    def wait_for_info(self, timeout=60.0):
        """Waits until every producer published its info dataset; reads num_classes."""
        deadline = time.monotonic() + timeout
        for source in self.sources:
            self.client.set_data_source(source)
            while not self.client.dataset_exists(self.list_name + INFO_SUFFIX):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"producer {source} published no {self.list_name}{INFO_SUFFIX}")
                time.sleep(0.05)
            info = self.client.get_dataset(self.list_name + INFO_SUFFIX)
            if "num_classes" in info.meta_scalar_fields():
                self.num_classes = int(info.get_meta_scalars("num_classes")[0])
            self.sample_name = info.get_meta_strings("sample_name")[0]
            self.target_name = info.get_meta_strings("target_name")[0]
        return self.num_classes

    def update(self):
        """Fetches this rank's share of the batches that appeared since the last call.
        Returns how many batches it added."""
        added = 0
        for source in self.sources:
            self.client.set_data_source(source)
            length = self.client.get_list_length(self.list_name)
            for index in range(self.seen[source], length):
                if index % self.world_size != self.rank:
                    continue
                ds = self.client.get_datasets_from_list(self.list_name, index, index)[0]
                self.samples.append(ds.get_tensor(self.sample_name))
                self.targets.append(ds.get_tensor(self.target_name))
                added += 1
            self.seen[source] = max(self.seen[source], length)
        return added

    def wait_for_batches(self, count, timeout=60.0, interval=0.05):
        """Updates until this rank holds at least `count` batches."""
        deadline = time.monotonic() + timeout
        while True:
            self.update()
            if len(self.samples) >= count:
                return len(self.samples)
            if time.monotonic() > deadline:
                raise TimeoutError(f"rank {self.rank} has {len(self.samples)} of {count} batches after {timeout}s")
            time.sleep(interval)

    def batches(self, shuffle=True):
        """The (samples, targets) batches held so far."""
        order = list(range(len(self.samples)))
        if shuffle:
            random.shuffle(order)
        for i in order:
            yield self.samples[i], self.targets[i]

    def __len__(self):
        return len(self.samples)

    def as_torch_dataset(self, update_each_epoch=True, shuffle=True):
        """A torch IterableDataset over the batches (use DataLoader(..., batch_size=None)).
        Each pass first pulls whatever arrived since the previous one."""
        import torch  # only when asked: the module works without torch

        downloader = self

        class _Batches(torch.utils.data.IterableDataset):
            def __iter__(self):
                if update_each_epoch:
                    downloader.update()
                for x, y in downloader.batches(shuffle=shuffle):
                    yield torch.from_numpy(np.asarray(x)), torch.from_numpy(np.asarray(y))

        return _Batches()


class _StreamingDataset:
    """The producers' batches as a PyTorch IterableDataset that works with DataLoader
    workers (fork or spawn) and with several trainer ranks:

        data = StreamingDataset(rank=rank, world_size=world)
        loader = DataLoader(data, batch_size=None, num_workers=2)

    It pickles (names and counts only): each process opens its own connection. Each
    epoch takes the batches that exist when rank 0 starts it (a snapshot of the
    producers' list lengths, stored in the database for the other ranks); each rank gets
    the same number of them (every world_size-th batch, cut to the count all ranks can
    have), so DistributedDataParallel never waits on a rank that ran out; a rank's
    DataLoader workers share its batches without overlap. Ranks agree on the epoch
    through the database, not a collective: each rank's epochs are counted there."""

    def __init__(self, list_name="training_data", rank=0, world_size=1, sources=None, shuffle=True, seed=0,
                 min_batches=1, timeout=120.0):
        self.list_name = list_name
        self.rank = rank
        self.world_size = world_size
        self.sources = list(sources) if sources is not None else _sources_from_env()
        self.shuffle = shuffle
        self.seed = seed
        self.min_batches = max(1, min_batches)  # per rank, before the first epoch starts
        self.timeout = timeout
        self.epoch = 0  # this process's count, without DataLoader workers
        self.sample_name = self.target_name = None
        self._client = None
        self._raw = None
        owner = os.environ.get("SSIM_ENTITY", "trainer") + "." + os.environ.get("SSIM_EXPERIMENT_ID", "")
        self._key = f"ssim.loader.{owner}.{list_name}"

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_client"] = state["_raw"] = None  # connections are per process
        return state

    def _clients(self):
        if self._client is None:
            self._client = Client()
            self._raw = Client()
            self._raw.use_tensor_prefix(False)  # the loader's own keys, shared by the ranks
        return self._client, self._raw

    def _wait(self, what, ready, interval=0.02):
        deadline = time.monotonic() + self.timeout
        while True:
            value = ready()
            if value is not None:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"rank {self.rank}: no {what} after {self.timeout} s")
            time.sleep(interval)

    def _get(self, raw, key):
        return raw.get_tensor(key) if raw.tensor_exists(key) else None

    def _read_info(self, client):
        if self.sample_name is not None:
            return
        down = Downloader(self.list_name, sources=self.sources, client=client)
        down.wait_for_info(self.timeout)
        self.sample_name, self.target_name = down.sample_name, down.target_name

    def _lengths(self, client):
        out = []
        for source in self.sources:
            client.set_data_source(source)
            out.append(client.get_list_length(self.list_name))
        return out

    def _this_epoch(self, raw, worker):
        """The epoch number this rank is in, the same in all its workers."""
        if worker is None:
            self.epoch += 1
            return self.epoch - 1
        # The workers of one DataLoader iteration share its base seed (seed - id).
        mine = f"{self._key}.rank{self.rank}.iter{worker.seed - worker.id}"
        if worker.id == 0:
            last = self._get(raw, f"{self._key}.rank{self.rank}.last")
            epoch = int(last[0]) + 1 if last is not None else 0
            raw.put_tensor(f"{self._key}.rank{self.rank}.last", np.array([epoch], dtype=np.int64))
            raw.put_tensor(mine, np.array([epoch], dtype=np.int64))
            return epoch
        return int(self._wait("epoch number from worker 0", lambda: self._get(raw, mine))[0])

    def _snapshot(self, client, raw, epoch, writer):
        key = f"{self._key}.epoch{epoch}"
        if writer:
            need = self.min_batches * self.world_size
            lengths = self._wait(f"{need} batches", lambda: (lambda n: n if sum(n) >= need else None)(
                self._lengths(client)), interval=0.05)
            raw.put_tensor(key, np.array(lengths, dtype=np.int64))
            return [int(n) for n in lengths]
        return [int(n) for n in self._wait(f"epoch {epoch} from rank 0", lambda: self._get(raw, key))]

    def plan(self, lengths, epoch, worker_id=0, workers=1):
        """The (source index, batch index) pairs this rank's worker reads in an epoch."""
        items = [(s, i) for s, n in enumerate(lengths) for i in range(n)]
        per_rank = len(items) // self.world_size
        mine = items[self.rank::self.world_size][:per_rank]
        if self.shuffle:
            random.Random(self.seed * 1000003 + epoch * 1009 + self.rank).shuffle(mine)
        return mine[worker_id::workers]

    def __iter__(self):
        import torch

        worker = torch.utils.data.get_worker_info()
        client, raw = self._clients()
        self._read_info(client)
        epoch = self._this_epoch(raw, worker)
        writer = self.rank == 0 and (worker is None or worker.id == 0)
        lengths = self._snapshot(client, raw, epoch, writer)
        for s, i in self.plan(lengths, epoch, worker.id if worker else 0, worker.num_workers if worker else 1):
            client.set_data_source(self.sources[s])
            ds = client.get_datasets_from_list(self.list_name, i, i)[0]
            yield (torch.from_numpy(np.asarray(ds.get_tensor(self.sample_name))),
                   torch.from_numpy(np.asarray(ds.get_tensor(self.target_name))))


def __getattr__(name):
    # StreamingDataset is a torch IterableDataset (DataLoader treats it as one), made on
    # first use so that the module never imports torch unless asked (and pickles find it
    # by this name).
    if name != "StreamingDataset":
        raise AttributeError(f"module {__name__} has no attribute {name}")
    import torch.utils.data

    cls = type("StreamingDataset", (_StreamingDataset, torch.utils.data.IterableDataset),
               {"__doc__": _StreamingDataset.__doc__, "__module__": __name__})
    globals()["StreamingDataset"] = cls
    return cls


__all__ = ["Uploader", "Downloader", "StreamingDataset", "KeyNotFound"]
