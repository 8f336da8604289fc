"""Device check trainer: one rank given one GPU by ssim pulls the producers' batches and
trains on it, logging metrics; it records which device it saw, so the check can compare it
with the one ssim gave it (CUDA_VISIBLE_DEVICES) and nvidia-smi's."""
import json
import os

import torch

import ssim.metrics
from ssim.distributed import init_torch_distributed
from ssim.ml import Downloader

rank, world, device = init_torch_distributed()
want_cuda = os.environ.get("DEVICE_CHECK_WANT_CUDA") == "1"
if want_cuda and device.type != "cuda":
    raise SystemExit(f"no CUDA device here (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r})")
down = Downloader(rank=0, world_size=1)
down.wait_for_info(timeout=120)
down.wait_for_batches(4, timeout=120)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2)).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = torch.nn.CrossEntropyLoss()
data = down.as_torch_dataset()
step = 0
for epoch in range(6):
    correct = seen = 0
    for x, y in data:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = loss_fn(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        correct += (out.argmax(1) == y).sum().item()
        seen += len(y)
        step += 1
        ssim.metrics.log("loss", loss.item(), step=step, epoch=epoch)
    ssim.metrics.log("accuracy", correct / max(seen, 1), step=step, epoch=epoch)
ssim.metrics.flush()
seen_device = {"device": str(device), "rank": rank, "world": world,
               "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
               "device_count": torch.cuda.device_count() if device.type == "cuda" else 0,
               "accuracy": correct / max(seen, 1), "steps": step}
if device.type == "cuda":
    props = torch.cuda.get_device_properties(device)
    seen_device.update(name=props.name, uuid=str(getattr(props, "uuid", "")),
                       tensor_on=str(torch.ones(1, device=device).device))
with open(os.path.join(os.environ["SSIM_RUN_DIR"], "seen.json"), "w") as f:
    json.dump(seen_device, f)
print(json.dumps(seen_device), flush=True)
