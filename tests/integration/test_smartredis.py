"""SmartRedis programs against ssim's database, through the door (smartredis: true).

The recordings in tests/fixtures/smartredis/ are what SmartRedis 0.6.1 (Python, C++, C,
Fortran) and 0.5.3 (Python) sent and what Redis 7.0 with RedisAI 1.2.7 answered (README there); they are
replayed against ssim and every reply must be RedisAI's, byte for byte, where RedisAI's
is deterministic."""
import base64
import gzip
import json
import os
import subprocess
import sys
import unittest

from ssimtest import SSIM, SsimTestCase, processes_with_env, wait_for
from test_slurm import SlurmCase, cluster_up

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "../fixtures/smartredis")
REPLAY = os.path.join(HERE, "smartredis_replay.py")


def parse(buf, i=0):
    """One RESP2 value at buf[i:] as (value, end): bytes, int, None, a list, or
    ("+"|"-", text) for a status or an error."""
    nl = buf.index(b"\r\n", i)
    kind, line = buf[i:i + 1], buf[i + 1:nl]
    if kind in (b"+", b"-"):
        return (kind.decode(), line.decode(errors="replace")), nl + 2
    if kind == b":":
        return int(line), nl + 2
    if kind == b"$":
        n = int(line)
        return (None, nl + 2) if n < 0 else (buf[nl + 2:nl + 2 + n], nl + 4 + n)
    items, j = [], nl + 2
    for _ in range(int(line)):
        value, j = parse(buf, j)
        items.append(value)
    return items, j


def recording(name):
    with gzip.open(os.path.join(FIXTURES, f"{name}.ndjson.gz"), "rt") as f:
        return [json.loads(line) for line in f]


def differences(exchanges, replies):
    """Where `replies` (bytes, one per exchange) differ from RedisAI's recorded ones.
    Byte for byte, except where RedisAI's reply is not deterministic: INFO (a report of
    the server's own state: a bulk string), CLUSTER SLOTS (the node's own address and id:
    the same slot ranges) and CONFIG GET (the same names, in any order
    (Redis's own order changes from run to run), any values)."""
    found = []
    for i, (e, got) in enumerate(zip(exchanges, replies)):
        command = parse(base64.b64decode(e["send"]))[0]
        want = base64.b64decode(e["reply"])
        name = command[0].upper()
        if name == b"INFO":
            same = got[:1] == b"$" == want[:1]
        elif name == b"CLUSTER" and command[1].upper() == b"SLOTS":  # its own address and id: one node, every slot
            same = got[:1] == b"*" and [r[:2] for r in parse(got)[0]] == [r[:2] for r in parse(want)[0]]
        elif name == b"CONFIG" and command[1].upper() == b"GET":
            same = sorted(parse(got)[0][0::2]) == sorted(parse(want)[0][0::2]) if got[:1] == b"*" else False
        else:
            same = got == want
        if not same:
            found.append(f"#{i} {b' '.join(w[:40] for w in command)!r}: RedisAI {want[:120]!r}, ssim {got[:120]!r}")
    if len(replies) != len(exchanges):
        found.append(f"{len(replies)} replies for {len(exchanges)} commands")
    return found


def replies_in(path):
    with open(path) as f:
        return [base64.b64decode(json.loads(line)["reply"]) for line in f]


class Replay(unittest.TestCase):
    def test_one_changed_reply_byte_is_caught(self):
        exchanges = recording("python")
        replies = [base64.b64decode(e["reply"]) for e in exchanges]
        self.assertEqual(differences(exchanges, replies), [])
        for i, e in enumerate(exchanges):  # a tensor's bytes, an integer, a status
            if b"AI.TENSORGET" in base64.b64decode(e["send"])[:40] or replies[i][:1] in b":+":
                changed = list(replies)
                changed[i] = replies[i][:-3] + bytes([replies[i][-3] ^ 1]) + replies[i][-2:]
                self.assertEqual(len(differences(exchanges, changed)), 1, f"exchange {i}")


class SmartRedisThroughTheDoor(SsimTestCase):
    def experiment(self, models, shards=1):
        self.write("experiment.yaml", f"""
experiment: {{name: sr, path: sr}}
orchestrator: {{port: auto, inference: true, shards: {shards}}}
models:
{models}""")

    def replay(self, sessions, shards=1):
        """Each recorded session as an entity behind its door, one after the other on one
        database; every reply must be RedisAI's."""
        models, previous = "", None
        for i, name in enumerate(sessions):
            models += f"""  - name: session{i}
    exe: {sys.executable}
    args: [{REPLAY}, {os.path.join(FIXTURES, name + ".ndjson.gz")}, {os.path.join(self.dir, name + ".replies")}]
    smartredis: true
"""
            if previous:
                models += f"    after: [{previous}]\n"
            previous = f"session{i}"
        self.experiment(models, shards)
        run = self.ssim("run", "experiment.yaml", timeout=180)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        for name in sessions:
            with self.subTest(name):
                found = differences(recording(name), replies_in(os.path.join(self.dir, name + ".replies")))
                self.assertEqual(found, [], "\n".join(found))

    def test_recorded_sessions_replay_byte_for_byte(self):
        self.replay(["python", "cpp", "c", "fortran"])

    def test_smartredis_0_5_sessions_replay_byte_for_byte(self):
        self.replay(["python-0.5.3"])

    def test_a_cluster_client_replays_on_three_shards(self):
        # Client(cluster=True): the door is one node owning every slot; keys go to ssim's shards.
        self.replay(["python-cluster"], shards=3)

    def test_ssim_clients_and_smartredis_share_one_store(self):
        exchanges = recording("python")
        wanted = {}
        for e in exchanges:  # RedisAI's replies to what the check below asks of ssim's writes
            command = parse(base64.b64decode(e["send"]))[0]
            key = b" ".join(command[:2]) if command[0] in (b"AI.TENSORGET", b"HGETALL") else None
            if key and key not in wanted:
                wanted[key.decode()] = base64.b64decode(e["reply"]).decode("latin-1")
        self.write("wanted.json", json.dumps(wanted))
        self.write("both.py", f"""
import base64, json, os, socket, sys
import numpy as np
sys.path.insert(0, {HERE!r})
import ssim
from test_smartredis import parse
from smartredis_replay import Connection
wanted = {{k: v.encode("latin-1") for k, v in json.load(open({os.path.join(self.dir, "wanted.json")!r})).items()}}
c = ssim.Client()   # SSIM_DATABASE: the database itself, not the door
door = Connection(os.environ["SSDB"])
def ask(*words):
    return door.call(b"*%d\\r\\n" % len(words) + b"".join(b"$%d\\r\\n%s\\r\\n" % (len(w), w) for w in words))
out = {{}}
# What SmartRedis stored (the python recording, replayed before this), read by ssim.
x = c.get_tensor("x")
out["x"] = [str(x.dtype), list(x.shape), x.ravel().tolist()]
ds = c.get_dataset("ds")
out["ds"] = [ds.get_meta_strings("label"), ds.get_meta_scalars("step"), ds.get_meta_scalars("f32"),
             ds.get_tensor("u").dtype.name, ds.get_tensor("t").tolist()]
out["lst"] = [d.get_meta_scalars("step")[0] for d in c.get_datasets_from_list("lst")]
# What ssim stores, read as SmartRedis reads it: RedisAI's own replies.
c.put_tensor("y", np.arange(12, dtype=np.float32).reshape(3, 4))
out["tensorget"] = ask(b"AI.TENSORGET", b"y", b"META", b"BLOB") == wanted["AI.TENSORGET x"]
d = ssim.Dataset("mine")
d.add_tensor("t", np.arange(4, dtype=np.float64))
d.add_meta_string("label", "first"); d.add_meta_string("label", "second")
d.add_meta_scalar("step", 7); d.add_meta_scalar("dt", 0.25)
c.put_dataset(d)
ours = parse(ask(b"HGETALL", b"{{mine}}.meta"))[0]
theirs = parse(wanted["HGETALL {{ds}}.meta"])[0]
ours, theirs = dict(zip(ours[0::2], ours[1::2])), dict(zip(theirs[0::2], theirs[1::2]))
out["meta"] = {{k.decode(): ours.get(k) == theirs[k] for k in (b"label", b"step", b"dt", b".COMPLETE")}}
out["member"] = ask(b"AI.TENSORGET", b"{{mine}}.t", b"META", b"BLOB") == wanted["AI.TENSORGET {{ds}}.t"]
out["exists"] = [ask(b"EXISTS", b"y").decode(), ask(b"HEXISTS", b"{{mine}}.meta", b".COMPLETE").decode()]
json.dump(out, open({os.path.join(self.dir, "both.json")!r}, "w"), default=str)
""")
        self.experiment(f"""  - name: smartredis
    exe: {sys.executable}
    args: [{REPLAY}, {os.path.join(FIXTURES, "python.ndjson.gz")}, {os.path.join(self.dir, "python.replies")}]
    smartredis: true
  - name: both
    exe: {sys.executable}
    args: [{os.path.join(self.dir, "both.py")}]
    smartredis: true
    after: [smartredis]
""")
        run = self.ssim("run", "experiment.yaml", timeout=180)
        with open(os.path.join(self.dir, "sr/both/both.err")) as f:
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr + f.read())
        with open(os.path.join(self.dir, "both.json")) as f:
            got = json.load(f)
        self.assertEqual(got["x"], ["float32", [3, 4], list(range(12))])
        self.assertEqual(got["ds"], [["first", "second"], [7.0], [1.5], "int32", [0.0, 1.0, 2.0, 3.0]])
        self.assertEqual(got["lst"], [0.0, 1.0])
        self.assertTrue(got["tensorget"], "ssim's tensor, asked for as SmartRedis asks, is not RedisAI's reply")
        self.assertEqual(got["meta"], {"label": True, "step": True, "dt": True, ".COMPLETE": True})
        self.assertTrue(got["member"])
        self.assertEqual(got["exists"], [":1\r\n", ":1\r\n"])

    def test_a_program_started_by_hand_reaches_a_running_experiment_through_a_door(self):
        # A notebook or a driver script on SmartRedis, beside a running experiment.
        self.experiment("  - {name: wait, exe: /bin/sleep, args: ['120']}\n")
        run = self.run_until("sr", "wait")
        replies = os.path.join(self.dir, "by-hand.replies")
        p = subprocess.run([SSIM, "env", "--smartredis", "sr", "--", sys.executable, REPLAY,
                            os.path.join(FIXTURES, "fortran.ndjson.gz"), replies],
                           cwd=self.dir, env=self.env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        found = differences(recording("fortran"), replies_in(replies))
        self.assertEqual(found, [], "\n".join(found))
        self.ssim("stop", "sr", check=0)
        run.communicate(timeout=60)

    def test_stop_ends_the_door_and_its_program(self):
        self.experiment(f"""  - name: sleeper
    exe: {sys.executable}
    args: [-c, "import time; open('started', 'w').close(); time.sleep(600)"]
    run: {{ntasks: 2}}
    smartredis: true
""")
        self.ssim("run", "--detach", "experiment.yaml", check=0)
        wait_for(lambda: os.path.exists(os.path.join(self.dir, "sr/sleeper/started")), timeout=60, what="started")
        exp_id = self.manifest("sr")["id"]

        def doors():
            found = []
            for pid in processes_with_env("SSIM_EXPERIMENT_ID", exp_id):
                try:
                    with open(f"/proc/{pid}/comm") as f:
                        if f.read().strip() == "ssim-door":
                            found.append(pid)
                except OSError:
                    pass  # ended meanwhile
            return found
        wait_for(lambda: len(doors()) == 2, timeout=30, what="one door per rank")
        self.ssim("stop", "experiment.yaml", check=0)
        wait_for(lambda: not processes_with_env("SSIM_EXPERIMENT_ID", exp_id), timeout=30, what="nothing left")
        self.assertEqual(self.status()[1]["sleeper"]["status"], "cancelled")

    def test_the_door_answers_its_own_user_only(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to connect as another user")
        self.write("door.py", f"""
import json, os, subprocess, sys
sys.path.insert(0, {HERE!r})
from smartredis_replay import Connection
door = Connection(os.environ["SSDB"])
def ask(*words):
    return door.call(b"*%d\\r\\n" % len(words) + b"".join(b"$%d\\r\\n%s\\r\\n" % (len(w), w) for w in words)).decode(errors="replace")
out = {{"ssdb": os.environ["SSDB"], "type": os.environ.get("SR_DB_TYPE"), "ping": ask(b"PING"),
        "tf": ask(b"AI.MODELSTORE", b"m", b"TF", b"CPU", b"BLOB", b"x"),
        "flush": ask(b"FLUSHALL"), "slots": ask(b"CLUSTER", b"SLOTS")}}
host, port = os.environ["SSDB"].rsplit(":", 1)
other = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c",
    "import socket; s = socket.create_connection((%r, %s)); s.sendall(b'*1\\\\r\\\\n$4\\\\r\\\\nPING\\\\r\\\\n'); print(s.recv(200).decode())" % (host, port)],
    capture_output=True, text=True, timeout=20)
out["other"] = other.stdout + other.stderr
json.dump(out, open({os.path.join(self.dir, "door.json")!r}, "w"))
""")
        self.experiment(f"""  - name: door
    exe: {sys.executable}
    args: [{os.path.join(self.dir, "door.py")}]
    smartredis: true
""")
        run = self.ssim("run", "experiment.yaml", timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        with open(os.path.join(self.dir, "door.json")) as f:
            got = json.load(f)
        self.assertTrue(got["ssdb"].startswith("127.0.0.1:"), got["ssdb"])
        self.assertEqual(got["type"], "Standalone")
        self.assertEqual(got["ping"], "+PONG\r\n")
        self.assertTrue(got["tf"].startswith("-ERR Backend not loaded: TF (ssim runs TorchScript models only"), got["tf"])
        self.assertTrue(got["flush"].startswith("-ERR ssim keeps its own records"), got["flush"])
        self.assertIn(got["ssdb"].rsplit(":", 1)[1], got["slots"])
        self.assertIn("-ERR ssim's SmartRedis door answers uid 0 only (this connection is uid 65534)", got["other"])

    def test_smartredis_without_a_database_is_refused_before_anything_runs(self):
        self.write("experiment.yaml", """
experiment: {name: nodb, path: nodb}
models:
  - name: sim
    exe: /bin/true
    smartredis: true
""")
        p = self.ssim("validate", "experiment.yaml")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("experiment.yaml:6:17: models[0].smartredis:", p.stderr)
        self.assertIn("would reach no database", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "nodb")))


@unittest.skipUnless(cluster_up(), "no Slurm cluster (scripts/slurm-cluster.sh up)")
class SmartRedisOnSlurm(SlurmCase):
    def test_each_node_s_ranks_have_their_own_door_to_one_database(self):
        self.allocate(3)  # the database's node and the two ranks'
        self.write("rank.py", f"""
import json, os, sys, time
sys.path.insert(0, {HERE!r})
from smartredis_replay import Connection
rank, node = int(os.environ["SLURM_PROCID"]), os.environ["SLURMD_NODENAME"]
door = Connection(os.environ["SSDB"])
def ask(*words):
    return door.call(b"*%d\\r\\n" % len(words) + b"".join(b"$%d\\r\\n%s\\r\\n" % (len(w), w) for w in words))
mine = node.encode() * 4
assert ask(b"AI.TENSORSET", b"r%d" % rank, b"UINT8", b"%d" % len(mine), b"BLOB", mine) == b"+OK\\r\\n"
other = b"r%d" % (1 - rank)
deadline = time.time() + 60
while ask(b"EXISTS", other) != b":1\\r\\n":
    assert time.time() < deadline, "the other rank's tensor never came"
    time.sleep(0.05)
got = ask(b"AI.TENSORGET", other, b"BLOB")
json.dump({{"node": node, "ssdb": os.environ["SSDB"], "database": os.environ["SSIM_DATABASE"],
            "other": got.split(b"\\r\\n")[1].decode()}}, open(f"rank{{rank}}.json", "w"))
""")
        self.write("experiment.yaml", f"""
experiment: {{name: srslurm, launcher: slurm}}
orchestrator: {{port: auto}}
models:
  - name: coupled
    exe: /usr/bin/python3
    args: [rank.py]
    files: {{copy: [rank.py]}}
    run: {{nodes: 2, ntasks: 2}}
    smartredis: true
""")
        self.ssim("run", "experiment.yaml", timeout=240, check=0)
        _, s = self.status()
        ranks = []
        for r in range(2):
            with open(os.path.join(s["coupled"]["run_dir"], f"rank{r}.json")) as f:
                ranks.append(json.load(f))
        self.assertNotEqual(ranks[0]["node"], ranks[1]["node"])  # two nodes, a door on each
        for me, other in ((ranks[0], ranks[1]), (ranks[1], ranks[0])):
            self.assertTrue(me["ssdb"].startswith("127.0.0.1:"), me)
            self.assertEqual(me["other"], other["node"] * 4)


if __name__ == "__main__":
    unittest.main()
