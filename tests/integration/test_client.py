"""The data client on real databases started by ssim (one server, then a 3-shard
cluster): the C++ tests (client_test.cpp), the Python module, and C++ <-> Python."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

import numpy as np

import ssim
from ssimtest import SSIM, free_port

BUILD_TESTS = os.path.join(os.path.dirname(__file__), "../../build/tests")
CLIENT_TESTS = os.environ.get("CLIENT_TESTS", os.path.join(BUILD_TESTS, "client_tests"))
C_CHECK = os.environ.get("C_CHECK", os.path.join(BUILD_TESTS, "clients/c_check"))
FORTRAN_CHECK = os.environ.get("FORTRAN_CHECK", os.path.join(BUILD_TESTS, "clients/fortran_check"))


class Database:
    """A database left running by `ssim run` (persist: true), stopped by stop()."""

    def __init__(self, shards):
        self.dir = tempfile.mkdtemp(prefix="ssim-db-")
        self.env = dict(os.environ, SSIM_STATE_HOME=os.path.join(self.dir, "state"))
        port = free_port(shards)
        with open(os.path.join(self.dir, "db.yaml"), "w") as f:
            f.write(f"experiment: {{name: db}}\norchestrator: {{port: {port}, shards: {shards}, persist: true}}\n"
                    "models: [{name: noop, exe: /bin/true}]\n")
        subprocess.run([SSIM, "run", "db.yaml"], cwd=self.dir, env=self.env, check=True, capture_output=True)
        self.address = ",".join(f"127.0.0.1:{port + i}" for i in range(shards))
        with open(os.path.join(self.dir, "db/.ssim/db_password")) as f:
            self.password = f.read().strip()

    def client_env(self, **extra):
        env = dict(os.environ, SSDB=self.address, SSDB_PASSWORD=self.password)
        for k in ("SSKEYIN", "SSKEYOUT"):
            env.pop(k, None)
        env.update(extra)
        return env

    def stop(self):
        subprocess.run([SSIM, "stop", "db"], cwd=self.dir, env=self.env, capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


class ClientOn:
    shards = 1

    @classmethod
    def setUpClass(cls):
        cls.db = Database(cls.shards)

    @classmethod
    def tearDownClass(cls):
        cls.db.stop()

    def setUp(self):
        self.saved = {k: os.environ.get(k) for k in ("SSDB", "SSDB_PASSWORD", "SSKEYIN", "SSKEYOUT")}
        os.environ.update(SSDB=self.db.address, SSDB_PASSWORD=self.db.password)
        os.environ.pop("SSKEYIN", None)
        os.environ.pop("SSKEYOUT", None)

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def cpp(self, *tags):
        return self.program(CLIENT_TESTS, *tags)

    def program(self, path, *args):
        p = subprocess.run([path, *args], env=self.db.client_env(), capture_output=True, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout[-4000:] + p.stderr[-2000:])
        return p.stdout

    def put_python_side(self):
        """What c_check get and fortran_check get expect to read."""
        c = ssim.Client()
        c.put_tensor("py_f64_2d", np.array([[11.0, 12, 13], [21, 22, 23]]))
        c.put_tensor("py_i64_3d", np.arange(24, dtype=np.int64).reshape(2, 3, 4))
        ds = ssim.Dataset("py_ds")
        ds.add_tensor("x", np.arange(4, dtype=np.float32))
        ds.add_meta_string("names", "alpha")
        ds.add_meta_string("names", "beta")
        ds.add_meta_scalar("step", 7)
        c.put_dataset(ds)
        c.delete_list("py_list")
        for i in range(3):
            item = ssim.Dataset(f"py_item_{i}")
            item.add_meta_scalar("i", i)
            c.append_to_list("py_list", item)
        return c

    def test_cpp_client_suite(self):
        self.cpp()

    def test_python_round_trips_every_dtype_and_shape(self):
        c = ssim.Client()
        self.assertEqual(c.is_cluster, self.shards > 1)
        for dtype in ("f8", "f4", "f2", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "?"):
            for shape in ((), (0,), (5,), (3, 0, 2), (2, 3, 4)):
                a = (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)
                c.put_tensor("py_rt", a)
                b = c.get_tensor("py_rt")
                self.assertEqual(b.dtype, a.dtype)
                self.assertEqual(b.shape, a.shape)
                np.testing.assert_array_equal(a, b)
                out = np.empty_like(a)
                c.unpack_tensor("py_rt", out)
                np.testing.assert_array_equal(a, out)
        bf = np.arange(6, dtype=np.uint16)
        c.put_tensor("bf", bf, dtype="bf16")
        np.testing.assert_array_equal(c.get_tensor("bf"), bf)

    def test_python_large_and_non_contiguous(self):
        c = ssim.Client()
        big = np.random.default_rng(1).random((4096, 2048))  # 64 MiB
        c.put_tensor("py_big", big)
        np.testing.assert_array_equal(c.get_tensor("py_big"), big)
        strided = big[::2, ::3]
        c.put_tensor("py_strided", strided)
        np.testing.assert_array_equal(c.get_tensor("py_strided"), strided)

    def test_python_takes_smartredis_constructor_arguments(self):
        # A SmartRedis program ports by its import line alone (docs/coming-from-smartsim.md).
        first = self.db.address.split(",")[0]
        for c in (ssim.Client(cluster=self.shards > 1), ssim.Client(False), ssim.Client(logger_name="producer"),
                  ssim.Client(cluster=self.shards > 1, address=first, logger_name="producer")):
            c.put_tensor("sr_ctor", np.arange(3.0))
            np.testing.assert_array_equal(c.get_tensor("sr_ctor"), np.arange(3.0))

    def test_python_errors(self):
        c = ssim.Client()
        with self.assertRaises(ssim.KeyNotFound):
            c.get_tensor("py_missing")
        c.put_tensor("py_f", np.zeros((2, 2), dtype=np.float32))
        with self.assertRaises(ssim.TypeMismatch):
            c.unpack_tensor("py_f", np.zeros((2, 2), dtype=np.float64))
        with self.assertRaises(ssim.AuthError):
            ssim.Client(self.db.address, "wrong")
        with self.assertRaises(ssim.ConnectionError):
            ssim.Client("127.0.0.1:1")
        self.assertTrue(issubclass(ssim.KeyNotFound, ssim.ClientError))

    def test_a_read_that_fails_half_way_leaves_the_client_in_step(self):
        # A reply too large to allocate (here under a memory limit) fails mid-reply; the
        # next calls must get their own answers, not what that reply left unread.
        script = """
import resource, numpy as np, ssim
c = ssim.Client()
c.put_tensor("oos_big", np.ones(40_000_000))      # 320 MB
c.put_tensor("oos_small", np.arange(3.0))
with open("/proc/self/status") as f:
    vm = [int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:")][0]
resource.setrlimit(resource.RLIMIT_AS, (vm + 150 * 2**20, resource.RLIM_INFINITY))
try:
    c.get_tensor("oos_big")
    print("no error")
except (MemoryError, ssim.ClientError) as e:
    print("failed:", type(e).__name__)
print(c.tensor_exists("oos_small"), c.tensor_exists("oos_missing"), c.get_tensor("oos_small").tolist())
for _ in range(3):
    print(c.tensor_exists("oos_missing"), c.tensor_exists("oos_small"))
"""
        p = subprocess.run(["/usr/bin/python3", "-c", script], env=self.db.client_env(), capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        lines = p.stdout.splitlines()
        self.assertTrue(lines[0].startswith("failed:"), p.stdout)
        self.assertEqual(lines[1:], ["True False [0.0, 1.0, 2.0]"] + ["False True"] * 3)

    def test_c_and_fortran_log_metrics_to_the_run_directory(self):
        for program, expected in ((C_CHECK, [("loss", 0.5, 1, None, None), ("val_acc", 0.75, 2, 1, "val")]),
                                  (FORTRAN_CHECK, [("loss", 0.25, 3, None, None), ("val_acc", 0.8, 3, 1, "val")])):
            with self.subTest(program=os.path.basename(program)):
                run_dir = tempfile.mkdtemp(prefix="ssim-metrics-")
                self.addCleanup(shutil.rmtree, run_dir, ignore_errors=True)
                env = self.db.client_env(SSIM_RUN_DIR=run_dir, OMPI_COMM_WORLD_RANK="1")
                p = subprocess.run([program, "metrics"], env=env, capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                with open(os.path.join(run_dir, "metrics.1.ndjson")) as f:
                    points = [json.loads(line) for line in f]
                self.assertEqual([(q["name"], q["value"], q.get("step"), q.get("epoch"), q.get("phase"))
                                  for q in points], expected)
                self.assertEqual({q["rank"] for q in points}, {1})

    def test_python_datasets_lists_and_prefixing(self):
        os.environ["SSKEYOUT"] = "sim_0"
        producer = ssim.Client()
        ds = ssim.Dataset("step_0")
        ds.add_tensor("u", np.ones((3, 3)))
        ds.add_meta_string("note", "first")
        ds.add_meta_scalar("t", 0.25)
        producer.append_to_list("steps", ds)
        os.environ["SSKEYOUT"] = "trainer"
        os.environ["SSKEYIN"] = "sim_0"
        reader = ssim.Client()
        self.assertEqual(reader.get_list_length("steps"), 1)
        got = reader.get_datasets_from_list("steps")[0]
        self.assertEqual(got.name, "step_0")
        self.assertEqual(got.get_meta_strings("note"), ["first"])
        self.assertEqual(got.get_meta_scalars("t"), [0.25])
        np.testing.assert_array_equal(got.get_tensor("u"), np.ones((3, 3)))
        self.assertTrue(reader.poll_list_length("steps", 1, 10, 2))

    def test_ml_uploader_and_downloader_split_across_ranks(self):
        for rank in range(2):
            os.environ["SSKEYOUT"] = "producer_x"
            up = ssim.ml.Uploader(num_classes=2, rank=rank, world_size=2)
            if rank == 0:
                up.publish_info()
            for i in range(3):
                up.put_batch(np.full((4, 2), rank, dtype=np.float32), np.full((4,), rank, dtype=np.int64))
        os.environ["SSKEYOUT"] = "trainer_x"
        os.environ["SSKEYIN"] = "producer_x"
        shares = []
        for rank in range(2):
            down = ssim.ml.Downloader(rank=rank, world_size=2)
            self.assertEqual(down.wait_for_info(timeout=5), 2)
            down.wait_for_batches(3, timeout=5)
            shares.append(len(down))
        self.assertEqual(shares, [3, 3])

    def test_cpp_and_python_read_each_other(self):
        self.cpp("[interop-write]")
        c = ssim.Client()
        np.testing.assert_array_equal(c.get_tensor("from_cpp"), np.arange(24).reshape(2, 3, 4) + 0.5)
        self.assertEqual(c.get_tensor("from_cpp_big").shape, (1024, 3072))
        ds = c.get_dataset("cpp_dataset")
        self.assertEqual(ds.get_meta_strings("origin"), ["c++"])
        np.testing.assert_array_equal(ds.get_tensor("s"), np.array([-1, 2, -3], dtype=np.int16))
        c.put_tensor("from_python", np.arange(20, dtype=np.float32).reshape(4, 5))
        c.put_tensor("from_python_big", np.arange(2048 * 1024, dtype=np.int32).reshape(2048, 1024))
        out = ssim.Dataset("py_dataset")
        out.add_tensor("flags", np.array([True, False]))
        out.add_meta_string("origin", "python")
        c.put_dataset(out)
        self.cpp("[interop-read]")

    def test_c_and_python_read_each_other(self):
        self.program(C_CHECK, "put")
        c = ssim.Client()
        expected = np.array([[11.0, 12, 13], [21, 22, 23]])
        np.testing.assert_array_equal(c.get_tensor("c_f64_2d"), expected)
        np.testing.assert_array_equal(c.get_tensor("c_f64_2d_from_fortran_layout"), expected)
        got = c.get_tensor("c_i32_1d")
        self.assertEqual((got.dtype, got.tolist()), (np.int32, [-2, -1, 0, 1, 2147483647]))
        ds = c.get_dataset("c_ds")
        np.testing.assert_array_equal(ds.get_tensor("a"), expected)
        self.assertEqual((ds.get_meta_strings("units"), ds.get_meta_scalars("step"), ds.get_meta_scalars("dt")),
                         (["m/s"], [42], [0.5]))
        self.assertEqual(c.get_list_length("c_list"), 1)
        self.put_python_side()
        self.program(C_CHECK, "get")

    def test_c_errors_are_codes_with_messages(self):
        self.put_python_side()
        self.program(C_CHECK, "errors")

    def test_fortran_and_python_read_each_other_with_fortran_indices(self):
        self.program(FORTRAN_CHECK, "put")
        c = ssim.Client()
        # Fortran a(i, j) = 10 i + j is numpy a[i-1, j-1]: same shape, same values.
        np.testing.assert_array_equal(c.get_tensor("f_f64_2d"), np.array([[11.0, 12, 13], [21, 22, 23]]))
        b = c.get_tensor("f_f32_3d")
        self.assertEqual((b.dtype, b.shape), (np.float32, (2, 3, 4)))
        i, j, k = np.meshgrid(np.arange(1, 3), np.arange(1, 4), np.arange(1, 5), indexing="ij")
        np.testing.assert_array_equal(b, 100 * i + 10 * j + k)
        v = c.get_tensor("f_i32_1d")
        self.assertEqual((v.dtype, v.tolist()), (np.int32, [-2, -1, 0, 1, 2147483647]))
        w = c.get_tensor("f_i64_4d")
        i, j, k, l = np.meshgrid(*(np.arange(1, n + 1) for n in (2, 2, 2, 3)), indexing="ij")
        self.assertEqual((w.dtype, w.shape), (np.int64, (2, 2, 2, 3)))
        np.testing.assert_array_equal(w, 1000 * i + 100 * j + 10 * k + l)
        np.testing.assert_array_equal(c.get_tensor("f_f64_row"), [21.0, 22, 23])
        ds = c.get_dataset("f_ds")
        np.testing.assert_array_equal(ds.get_tensor("a"), np.array([[11.0, 12, 13], [21, 22, 23]]))
        self.assertEqual((ds.get_meta_strings("units"), ds.get_meta_scalars("step")), (["m/s"], [42]))
        self.assertEqual(c.get_list_length("f_list"), 1)
        self.put_python_side()
        self.program(FORTRAN_CHECK, "get")

    def test_fortran_errors_are_codes_with_messages(self):
        self.put_python_side()
        self.program(FORTRAN_CHECK, "errors")

    def test_smartredis_names(self):
        c = self.put_python_side()
        self.assertTrue(c.key_exists("py_f64_2d"))
        self.assertFalse(c.key_exists("nothing"))
        self.assertFalse(c.poll_key("nothing", 1, 2))
        c.copy_dataset("py_ds", "py_ds_copy")
        c.rename_dataset("py_ds_copy", "py_ds_moved")
        self.assertFalse(c.dataset_exists("py_ds_copy"))
        moved = c.get_dataset("py_ds_moved")
        self.assertEqual((moved.name, moved.get_meta_strings("names")), ("py_ds_moved", ["alpha", "beta"]))
        np.testing.assert_array_equal(moved.get_tensor("x"), np.arange(4, dtype=np.float32))
        c.copy_list("py_list", "py_list_copy")
        c.rename_list("py_list_copy", "py_list_moved")
        self.assertEqual((c.get_list_length("py_list_copy"), c.get_list_length("py_list_moved")), (0, 3))
        self.assertEqual([d.name for d in c.get_dataset_list_range("py_list_moved", 0, 1)], ["py_item_0", "py_item_1"])
        self.assertTrue(c.poll_list_length_gte("py_list", 3, 1, 1))
        self.assertFalse(c.poll_list_length_gte("py_list", 4, 1, 1))
        self.assertTrue(c.poll_list_length_lte("py_list", 3, 1, 1))
        self.assertFalse(c.poll_list_length_lte("py_list", 2, 1, 1))
        addresses = c.db_addresses()
        self.assertEqual(len(addresses), self.shards)
        info = c.get_db_node_info(addresses[0])
        self.assertGreater(int(info["used_memory"]), 0)
        c.config_set("maxmemory-samples", "7", addresses[-1])
        self.assertEqual(c.config_get("maxmemory-samples", addresses[-1]), {"maxmemory-samples": "7"})
        c.save()
        c.flush_db()
        self.assertFalse(c.key_exists("py_f64_2d"))
        self.assertEqual(sum(int(c.get_db_node_info(a).get("db0", "keys=0").split(",")[0][5:]) for a in addresses), 0)

    def test_torch_tensors_go_in_and_come_back_without_numpy_by_hand(self):
        import torch
        c = ssim.Client()
        t = torch.arange(12, dtype=torch.float32).reshape(3, 4).requires_grad_()
        c.put_tensor("torch_t", t)
        back = torch.zeros(3, 4)
        c.unpack_tensor("torch_t", back)  # into the tensor's own memory
        self.assertTrue(torch.equal(back, t.detach()))
        b = torch.tensor([1.5, -2.0, 3.25], dtype=torch.bfloat16)
        c.put_tensor("torch_bf16", b)
        raw = c.get_tensor("torch_bf16")
        self.assertTrue(torch.equal(torch.from_numpy(raw.view(np.int16)).view(torch.bfloat16), b))
        with self.assertRaises(TypeError):
            c.put_tensor("bad", object())


class SingleServer(ClientOn, unittest.TestCase):
    shards = 1


class ThreeShardCluster(ClientOn, unittest.TestCase):
    shards = 3


import ssim.ml  # noqa: E402  (after the module-level import of ssim, as users would)

if __name__ == "__main__":
    unittest.main()
