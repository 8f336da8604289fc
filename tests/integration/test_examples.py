"""The examples, run as a user would (ssim run examples/...), at their small default
sizes, asserting on outcomes: accuracy above chance, every member completed, the
results table complete. One at a time: they share the examples' database port."""
import csv
import json
import os
import re
import shutil

from ssimtest import SsimTestCase

EXAMPLES = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../examples"))
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(os.environ.get("SSIM", "build/apps/ssim/ssim")))))


class Examples(SsimTestCase):
    def run_example(self, yaml, timeout=600):
        p = self.ssim("run", yaml, timeout=timeout)
        if p.returncode != 0:  # say why: the failed entities' own stderr
            _, entities = self.status(yaml)
            details = ""
            for name, e in entities.items():
                if e["status"] != "completed":
                    try:
                        with open(os.path.join(e["run_dir"], name + ".err")) as f:
                            err = f.read()[-3000:]
                    except OSError:
                        err = ""
                    details += f"\n--- {name} ({e['status']}, {e['reason']}):\n{err}"
            self.fail(p.stdout + p.stderr + details)
        doc, entities = self.status(yaml)
        for e in entities.values():
            self.assertEqual(e["status"], "completed", e)
        return entities

    def results(self, run_dir):
        with open(os.path.join(run_dir, "results.json")) as f:
            return json.load(f)

    def test_quickstart(self):
        entities = self.run_example(os.path.join(EXAMPLES, "quickstart/experiment.yaml"))
        out = self.ssim("logs", "runs/quickstart", "consumer", check=0).stdout
        self.assertIn("total: 8 values", out)

    def test_streaming_scenario_1_python_producers(self):
        entities = self.run_example(os.path.join(EXAMPLES, "streaming/experiment.yaml"))
        r = self.results(entities["trainer"]["run_dir"])
        self.assertGreater(r["final_accuracy"], r["chance"] + 0.3)
        self.assertEqual(r["world_size"], 1)
        # It kept pulling what arrived: each epoch saw at least the batches of the one
        # before, and more later on, unless every batch (2 members x 2 ranks x 20) had
        # already arrived before the first (a loaded machine starts torch slowly).
        seen = [h["batches"] for h in r["history"]]
        self.assertEqual(seen, sorted(seen))
        self.assertTrue(seen[0] == 80 or seen[-1] > seen[0], seen)

    def run_streaming_with_producer(self, program):
        """Scenario 1 with the Python producer swapped for a compiled one, as the YAML says."""
        folder = os.path.join(self.dir, "streaming")
        shutil.copytree(os.path.join(EXAMPLES, "streaming"), folder)
        yaml = os.path.join(folder, "experiment.yaml")
        with open(yaml) as f:
            text = f.read()
        producer = os.path.join(BUILD, "examples/streaming", program)
        text, swapped = re.subn(r"    exe: python3[^\n]*\n    args: \[producer.py,", f"    exe: {producer}\n    args: [", text)
        self.assertEqual(swapped, 1, "the example's producer lines changed: update this test")
        text = text.replace("files: {copy: [producer.py]}", "files: {}")
        with open(yaml, "w") as f:
            f.write(text)
        entities = self.run_example(yaml)
        self.assertIn("rank 1 of 2 uploaded", self.ssim("logs", "runs/streaming", "uploader_0", check=0).stdout)
        r = self.results(entities["trainer"]["run_dir"])
        self.assertGreater(r["final_accuracy"], r["chance"] + 0.3)

    def test_inference_from_fortran_and_cpp(self):
        folder = os.path.join(self.dir, "examples/inference")
        shutil.copytree(os.path.join(EXAMPLES, "inference"), folder)
        yaml = os.path.join(folder, "experiment.yaml")
        with open(yaml) as f:
            text = f.read().replace("../../build/", BUILD + "/")
        with open(yaml, "w") as f:
            f.write(text)
        self.run_example(yaml)
        for sim, lang in (("simulate_fortran", "fortran"), ("simulate_cpp", "c++")):
            out = self.ssim("logs", "runs/inference", sim, check=0).stdout
            error = float(re.search(re.escape(lang) + r": largest error of the surrogate against sin\(x\): +([0-9.]+)", out).group(1))
            self.assertLess(error, 0.1, out)
        status = self.ssim("status", "runs/inference", "--json", check=0)
        [service] = json.loads(status.stdout)["inference"]
        self.assertEqual(service["models"]["surrogate"]["calls"], 2)  # one per simulation

    def test_streaming_scenario_1_cpp_producers(self):
        self.run_streaming_with_producer("streaming_producer")

    def test_streaming_scenario_1_fortran_producers(self):
        # End to end only: the exact order of Fortran arrays is checked in test_client.
        self.run_streaming_with_producer("streaming_producer_fortran")

    def test_streaming_scenario_2_distributed_trainer(self):
        entities = self.run_example(os.path.join(EXAMPLES, "streaming/experiment_distributed.yaml"))
        r = self.results(entities["trainer"]["run_dir"])
        self.assertEqual(r["world_size"], 2)
        self.assertGreater(r["final_accuracy"], r["chance"] + 0.3)

    def test_dataparallel(self):
        entities = self.run_example(os.path.join(EXAMPLES, "dataparallel/experiment.yaml"))
        run_dir = entities["train"]["run_dir"]
        self.assertTrue(os.path.exists(os.path.join(run_dir, "checkpoint.pt")))
        r = self.results(run_dir)
        self.assertEqual(r["workers"], 2)
        self.assertIsNotNone(r["time_to_accuracy"])

    def test_sweep_records_each_member_s_time_to_accuracy(self):
        entities = self.run_example(os.path.join(EXAMPLES, "sweep/experiment.yaml"))
        members = {e["params"]["workers"]: e for name, e in entities.items() if e["ensemble"] == "scale"}
        self.assertEqual(sorted(members, key=int), ["1", "2", "4"])
        for e in members.values():
            self.assertTrue(e["goal"]["reached"], e)  # 90% test accuracy, as the metrics say
            self.assertGreater(e["goal"]["seconds"], 0, e)
            self.assertGreaterEqual(e["goal"]["value"], 0.9, e)
        table = self.ssim("status", "runs/sweep", "-o", "name,params,time_to_goal,accuracy", "--sort", "time_to_goal",
                          check=0).stdout
        rows = [line.split() for line in table.splitlines()[2:]]
        self.assertEqual(len(rows), 3, table)
        self.assertEqual([float(r[2]) for r in rows], sorted(float(r[2]) for r in rows))  # fastest first
        for r in rows:
            self.assertGreater(float(r[3]), 0.5, table)  # the final accuracy, from the metrics
