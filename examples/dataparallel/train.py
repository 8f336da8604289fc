"""Data-parallel PyTorch training, the job Horovod-style seeds run with
`horovodrun -np 2 python train.py`: each rank trains on its shard of a synthetic
MNIST-shaped dataset (generated here, so nothing is downloaded), gradients are averaged
(torch.distributed: gloo on CPU, nccl with a GPU per rank), rank 0 writes a checkpoint
every epoch and results.json with the time to reach the target accuracy. Every rank
reports its loss and the test accuracy to ssim each epoch (docs/metrics.md), so
`ssim status -o name,loss,accuracy` and a `goal:` need nothing else."""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist

import ssim.metrics
from ssim.distributed import init_torch_distributed


def synthetic_mnist(n, seed):
    """n 28x28 images of 10 classes: a fixed random prototype per class plus noise."""
    g = torch.Generator().manual_seed(1234)
    prototypes = torch.rand(10, 1, 28, 28, generator=g)
    g.manual_seed(seed)
    labels = torch.randint(0, 10, (n,), generator=g)
    images = prototypes[labels] + 2.0 * torch.randn(n, 1, 28, 28, generator=g)
    return images, labels


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--samples", type=int, default=4096)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--target-accuracy", type=float, default=0.9)
    args = p.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(0)
    start = time.monotonic()
    rank, world, device = init_torch_distributed()
    images, labels = synthetic_mnist(args.samples, seed=1)
    test_images, test_labels = synthetic_mnist(1024, seed=2)
    mine = slice(rank, None, world)  # this rank's shard
    images, labels = images[mine].to(device), labels[mine].to(device)
    test_images, test_labels = test_images.to(device), test_labels.to(device)

    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)).to(device)
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr * world)  # linear scaling with the global batch
    loss_fn = torch.nn.CrossEntropyLoss()
    steps = len(labels) // args.batch_size
    time_to_accuracy = None
    history = []
    for epoch in range(args.epochs):
        order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(epoch))
        model.train()
        for s in range(steps):
            idx = order[s * args.batch_size:(s + 1) * args.batch_size]
            opt.zero_grad()
            loss = loss_fn(model(images[idx]), labels[idx])
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            accuracy = (model(test_images).argmax(1) == test_labels).float().mean().item()
        elapsed = time.monotonic() - start
        if time_to_accuracy is None and accuracy >= args.target_accuracy:
            time_to_accuracy = elapsed
        history.append({"epoch": epoch, "loss": loss.item(), "accuracy": accuracy, "elapsed": elapsed})
        ssim.metrics.log(loss=loss.item(), accuracy=accuracy, step=epoch, epoch=epoch)
        if rank == 0:
            print(f"epoch {epoch}  loss {loss.item():.4f}  test accuracy {accuracy:.3f}  {elapsed:.1f}s  ({world} rank(s), {device})", flush=True)
            state = (model.module if world > 1 else model).state_dict()
            torch.save({"epoch": epoch, "model": state}, os.path.join(os.environ.get("SSIM_RUN_DIR", "."), "checkpoint.pt"))
    if rank == 0:
        result = {"workers": world, "target_accuracy": args.target_accuracy, "time_to_accuracy": time_to_accuracy,
                  "final_accuracy": history[-1]["accuracy"], "epochs": args.epochs, "device": str(device), "history": history}
        with open(os.path.join(os.environ.get("SSIM_RUN_DIR", "."), "results.json"), "w") as f:
            json.dump(result, f, indent=1)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
