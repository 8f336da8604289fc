"""Trains a small network to stand in for sin(x) on [-pi, pi] and stores it in the
experiment's database as TorchScript, for the simulations to run (docs/inference.md).
Runs on a GPU when there is one; the stored model is for the CPU either way, so any
node's inference service can serve it (store it with device="GPU" to run it on one)."""
import argparse
import math

import torch

import ssim

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=1500)
args = parser.parse_args()

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Sequential(torch.nn.Linear(1, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32), torch.nn.Tanh(),
                            torch.nn.Linear(32, 1)).to(device)
optimiser = torch.optim.Adam(model.parameters(), lr=0.01)
schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, args.steps)
for step in range(args.steps):
    x = (torch.rand(256, 1, device=device) * 2 - 1) * math.pi
    loss = torch.nn.functional.mse_loss(model(x), torch.sin(x))
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()
    schedule.step()
print(f"trained on {device}: mse {loss.item():.2e} after {args.steps} steps")

client = ssim.Client()
client.set_model("surrogate", torch.jit.script(model.cpu().eval()), device="CPU")
print("stored the model as \"surrogate\"")
