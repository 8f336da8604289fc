"""Streaming trainer: keeps downloading the producers' new batches each epoch and trains
a small classifier to tell which producer rank drew a sample. One rank (scenario 1) or
several (scenario 2: torch.distributed, each rank its share of the batches, gradients
averaged). Uses the GPU of its local rank when CUDA is available, the CPU otherwise."""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist

from ssim.distributed import init_torch_distributed
from ssim.ml import Downloader


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--min-batches", type=int, default=4, help="batches per rank before the first epoch")
    p.add_argument("--lr", type=float, default=0.05)
    args = p.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(0)
    rank, world, device = init_torch_distributed()
    down = Downloader(rank=rank, world_size=world)
    num_classes = down.wait_for_info(timeout=120)
    down.wait_for_batches(args.min_batches, timeout=120)
    features = down.samples[0].shape[1]

    model = torch.nn.Sequential(torch.nn.Linear(features, 32), torch.nn.ReLU(), torch.nn.Linear(32, num_classes)).to(device)
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    data = down.as_torch_dataset()  # each pass pulls the batches that arrived meanwhile

    history = []
    for epoch in range(args.epochs):
        batches = list(data)
        steps = torch.tensor([len(batches)])
        if world > 1:  # every rank takes as many steps as the one with the fewest batches
            dist.all_reduce(steps, op=dist.ReduceOp.MIN)
        total = torch.zeros(3)  # loss sum, correct, seen
        for x, y in batches[: int(steps)]:
            x, y = x.to(device), y.to(device)
            opt.zero_grad()
            out = model(x)
            loss = loss_fn(out, y)
            loss.backward()
            opt.step()
            total += torch.tensor([loss.item() * len(y), (out.argmax(1) == y).sum().item(), len(y)])
        if world > 1:
            dist.all_reduce(total)
        loss_avg, acc = (total[0] / total[2]).item(), (total[1] / total[2]).item()
        history.append({"epoch": epoch, "loss": loss_avg, "accuracy": acc, "batches": len(down)})
        if rank == 0:
            print(f"epoch {epoch:3d}  loss {loss_avg:.4f}  accuracy {acc:.3f}  ({int(total[2])} samples, "
                  f"{len(down)} batches on rank 0, {world} rank(s), {device})", flush=True)
        time.sleep(0.1)

    if rank == 0:
        result = {"final_accuracy": history[-1]["accuracy"], "chance": 1.0 / num_classes, "world_size": world,
                  "device": str(device), "history": history}
        with open(os.path.join(os.environ.get("SSIM_RUN_DIR", "."), "results.json"), "w") as f:
            json.dump(result, f, indent=1)
        print(f"final accuracy {result['final_accuracy']:.3f} (chance {result['chance']:.3f})", flush=True)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
