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


__all__ = ["Uploader", "Downloader", "KeyNotFound"]
