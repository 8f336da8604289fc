"""Collects the sweep members' results.json into one table: results.csv and
results.json in this run directory, one row per member, sorted by worker count."""
import csv
import glob
import json
import os
import sys


def main():
    ensemble_dir = sys.argv[1] if len(sys.argv) > 1 else "../scale"
    rows = []
    for member in sorted(glob.glob(os.path.join(ensemble_dir, "*"))):
        path = os.path.join(member, "results.json")
        if not os.path.exists(path):
            print(f"{os.path.basename(member)}: no results.json", file=sys.stderr)
            continue
        with open(path) as f:
            r = json.load(f)
        rows.append({"member": os.path.basename(member), "workers": r["workers"],
                     "time_to_accuracy": r["time_to_accuracy"], "final_accuracy": r["final_accuracy"],
                     "target_accuracy": r["target_accuracy"], "epochs": r["epochs"]})
    rows.sort(key=lambda r: r["workers"])
    with open("results.json", "w") as f:
        json.dump(rows, f, indent=1)
    with open("results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["member", "workers", "time_to_accuracy", "final_accuracy", "target_accuracy", "epochs"])
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        tta = "not reached" if r["time_to_accuracy"] is None else f"{r['time_to_accuracy']:.1f}s"
        print(f"{r['member']:10} workers {r['workers']:3d}  time to {r['target_accuracy']:.0%}: {tta:>11}  final {r['final_accuracy']:.3f}")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
