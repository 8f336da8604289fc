// Data client tests against a real database: SSDB / SSDB_PASSWORD name it (a single
// server or a cluster). Run by test_client.py, which starts the databases with ssim.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "lib/client/client.hpp"
#include "lib/client/connection.hpp"
#include "lib/client/hash_slot.hpp"
#include "lib/client/router.hpp"

using namespace ssim::client;

namespace {
std::string env(const char* n) { return getenv(n) ? getenv(n) : ""; }

// A payload whose bytes depend on position and seed, so swapped chunks show.
std::vector<uint8_t> pattern(size_t n, unsigned seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = 2463534242u ^ seed;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v[i] = static_cast<uint8_t>(x);
  }
  return v;
}

// Sets (or clears) the key-prefixing variables for a client built after it.
struct EnvScope {
  EnvScope(const char* out, const char* in) {
    out ? setenv("SSKEYOUT", out, 1) : unsetenv("SSKEYOUT");
    in ? setenv("SSKEYIN", in, 1) : unsetenv("SSKEYIN");
  }
  ~EnvScope() {
    unsetenv("SSKEYOUT");
    unsetenv("SSKEYIN");
  }
};
}  // namespace

TEST_CASE("every dtype and shape round-trips, including 0-d and empty", "[tensor]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  const std::vector<std::vector<uint64_t>> shapes = {{}, {0}, {7}, {3, 0, 2}, {2, 3, 4}, {1, 1, 1, 1, 5}};
  for (DType t : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I8, DType::I16, DType::I32, DType::I64,
                  DType::U8, DType::U16, DType::U32, DType::U64, DType::Bool}) {
    for (const auto& dims : shapes) {
      Tensor in(t, dims);
      auto bytes = pattern(in.bytes(), static_cast<unsigned>(t));
      if (t == DType::Bool)
        for (auto& b : bytes) b &= 1;
      if (in.bytes()) std::memcpy(in.data(), bytes.data(), in.bytes());
      const std::string name = "rt_" + dtype_name(t) + "_" + std::to_string(dims.size());
      c.put_tensor(name, in.data(), dims, t);
      const Tensor out = c.get_tensor(name);
      INFO(name);
      CHECK(out.dtype() == t);
      CHECK(out.dims() == dims);
      CHECK(std::memcmp(out.data(), in.data(), in.bytes()) == 0);
      Tensor buf(t, dims);
      c.unpack_tensor(name, buf.data(), dims, t);
      CHECK(std::memcmp(buf.data(), in.data(), in.bytes()) == 0);
    }
  }
}

TEST_CASE("sizes from 1 KiB to 256 MiB, chunked above 1 MiB", "[tensor][large]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  for (size_t kib : {1, 1023, 1024, 1025, 4096, 65536, 262144}) {
    const size_t n = kib * 1024;
    const auto in = pattern(n, static_cast<unsigned>(kib));
    c.put_tensor("big", in.data(), {n}, DType::U8);
    std::vector<uint8_t> out(n);
    c.unpack_tensor("big", out.data(), {n}, DType::U8);
    INFO(kib << " KiB");
    CHECK(out == in);
  }
}

TEST_CASE("exists, poll, delete, copy and rename, for small and chunked tensors", "[tensor]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  for (size_t n : {size_t(16), size_t(3) << 20}) {
    const auto in = pattern(n, 9);
    c.put_tensor("orig", in.data(), {n}, DType::U8);
    CHECK(c.tensor_exists("orig"));
    CHECK(c.poll_tensor("orig", 10, 3));
    c.copy_tensor("orig", "copy");
    c.rename_tensor("orig", "moved");
    CHECK_FALSE(c.tensor_exists("orig"));
    std::vector<uint8_t> out(n);
    c.unpack_tensor("moved", out.data(), {n}, DType::U8);
    CHECK(out == in);
    c.unpack_tensor("copy", out.data(), {n}, DType::U8);
    CHECK(out == in);
    c.delete_tensor("moved");
    c.delete_tensor("copy");
    CHECK_FALSE(c.tensor_exists("moved"));
    CHECK_FALSE(c.poll_tensor("moved", 1, 2));
    CHECK_THROWS_AS(c.get_tensor("copy"), KeyNotFound);
  }
}

TEST_CASE("wrong dtype or shape on unpack is an error and the connection stays usable", "[errors]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  std::vector<float> v(6, 1.5f);
  c.put_tensor("f", v.data(), {2, 3}, DType::F32);
  std::vector<double> d(6);
  CHECK_THROWS_AS(c.unpack_tensor("f", d.data(), {2, 3}, DType::F64), TypeMismatch);
  CHECK_THROWS_WITH(c.unpack_tensor("f", v.data(), {3, 2}, DType::F32), Catch::Contains("f32(2, 3)"));
  const auto big = pattern(size_t(5) << 20, 1);
  c.put_tensor("bigf", big.data(), {big.size()}, DType::U8);
  std::vector<uint8_t> small(10);
  CHECK_THROWS_AS(c.unpack_tensor("bigf", small.data(), {10}, DType::U8), TypeMismatch);
  std::vector<float> back(6);
  c.unpack_tensor("f", back.data(), {2, 3}, DType::F32);
  CHECK(back == v);
  CHECK_THROWS_AS(c.get_tensor("no-such-tensor"), KeyNotFound);
}

TEST_CASE("datasets and aggregation lists", "[dataset]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  c.delete_list("runs");
  for (int i = 0; i < 3; ++i) {
    Dataset ds("run_" + std::to_string(i));
    std::vector<double> x(100, i);
    const auto big = pattern(size_t(2) << 20, static_cast<unsigned>(i));
    ds.add_tensor("x", x.data(), {10, 10}, DType::F64);
    ds.add_tensor("raw", big.data(), {big.size()}, DType::U8);
    ds.add_meta_string("label", "run " + std::to_string(i));
    ds.add_meta_scalar("step", int64_t(i));
    ds.add_meta_scalar("dt", 0.5 * i);
    c.append_to_list("runs", ds);
  }
  CHECK(c.get_list_length("runs") == 3);
  CHECK(c.poll_list_length("runs", 3, 10, 2));
  CHECK_FALSE(c.poll_list_length("runs", 4, 1, 2));
  const auto all = c.get_datasets_from_list("runs");
  REQUIRE(all.size() == 3);
  CHECK(all[2].get_meta_strings("label") == std::vector<std::string>{"run 2"});
  CHECK(all[2].get_meta_scalars("step") == std::vector<double>{2});
  CHECK(all[2].get_meta_scalars("dt") == std::vector<double>{1.0});
  CHECK(all[1].get_tensor("x").as<double>()[99] == 1.0);
  CHECK(std::memcmp(all[1].get_tensor("raw").data(), pattern(size_t(2) << 20, 1).data(), size_t(2) << 20) == 0);
  const auto tail = c.get_datasets_from_list("runs", 1, -1);
  CHECK(tail.size() == 2);
  const Dataset one = c.get_dataset("run_0");
  CHECK(one.tensor_names() == std::vector<std::string>{"x", "raw"});
  c.delete_dataset("run_0");
  CHECK_FALSE(c.dataset_exists("run_0"));
  CHECK_THROWS_AS(c.get_dataset("run_0"), KeyNotFound);
}

TEST_CASE("key prefixing between two entities", "[prefix]") {
  std::vector<int32_t> a = {1, 2, 3}, b = {4, 5, 6};
  {
    EnvScope producer("producer_0", nullptr);
    Client c;
    c.put_tensor("field", a.data(), {3}, DType::I32);
    CHECK(c.tensor_exists("field"));  // reads its own prefix when it has no SSKEYIN
  }
  {
    EnvScope producer("producer_1", nullptr);
    Client c;
    c.put_tensor("field", b.data(), {3}, DType::I32);
  }
  EnvScope trainer("trainer", "producer_0,producer_1");
  Client c;
  CHECK(c.data_source() == "producer_0");
  std::vector<int32_t> out(3);
  c.unpack_tensor("field", out.data(), {3}, DType::I32);
  CHECK(out == a);
  c.set_data_source("producer_1");
  c.unpack_tensor("field", out.data(), {3}, DType::I32);
  CHECK(out == b);
  CHECK_THROWS_AS(c.set_data_source("stranger"), ClientError);
  c.use_tensor_prefix(false);
  CHECK(c.tensor_exists("producer_1.field"));
  CHECK_FALSE(c.tensor_exists("field"));
}

TEST_CASE("cluster: requests that meet MOVED are redirected", "[cluster]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  if (!c.is_cluster()) return;  // covered on the 3-shard database
  const auto big = pattern(size_t(3) << 20, 5);
  std::vector<std::string> names;
  for (int i = 0; i < 20; ++i) {
    names.push_back("moved_" + std::to_string(i));
    c.put_tensor(names.back(), big.data(), {big.size()}, DType::U8);
  }
  c.scramble_slot_map_for_tests();
  for (const auto& n : names) {
    std::vector<uint8_t> out(big.size());
    c.unpack_tensor(n, out.data(), {big.size()}, DType::U8);
    CHECK(out == big);
  }
  c.scramble_slot_map_for_tests();
  std::vector<int64_t> v = {1, 2};
  c.put_tensor("after_scramble", v.data(), {2}, DType::I64);
  CHECK(c.get_tensor("after_scramble").as<int64_t>()[1] == 2);
  c.scramble_slot_map_for_tests();
  std::vector<TensorRef> refs;
  for (int i = 0; i < 50; ++i) refs.push_back({"p_" + std::to_string(i), v.data(), {2}, DType::I64});
  c.put_tensors(refs);
  std::vector<std::string> pn;
  for (const auto& r : refs) pn.push_back(r.name);
  CHECK(c.get_tensors(pn).size() == 50);
}

TEST_CASE("cluster: a slot in migration answers ASK and the client follows it", "[cluster]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  if (!c.is_cluster()) return;
  const std::string password = env("SSDB_PASSWORD");
  std::vector<std::unique_ptr<Connection>> nodes;
  for (const auto& a : split_list(env("SSDB"))) {
    const size_t colon = a.rfind(':');
    nodes.push_back(std::make_unique<Connection>(a.substr(0, colon), std::stoi(a.substr(colon + 1)), password,
                                                 std::chrono::milliseconds(2000)));
  }
  // A key with a chunked value, so both the plain and the pipelined paths meet ASK.
  const std::string key = "ask_key";
  const std::string slot = std::to_string(hash_slot(key));
  Connection* owner = nullptr;
  for (auto& n : nodes) {
    try {
      n->command({"GET", key});
      owner = n.get();
    } catch (const ReplyError& e) {
      REQUIRE(e.moved());
    }
  }
  REQUIRE(owner);
  Connection* importer = nodes[0].get() == owner ? nodes[1].get() : nodes[0].get();
  const std::string owner_id(owner->command({"CLUSTER", "MYID"})->str);
  const std::string importer_id(importer->command({"CLUSTER", "MYID"})->str);
  importer->command({"CLUSTER", "SETSLOT", slot, "IMPORTING", owner_id});
  owner->command({"CLUSTER", "SETSLOT", slot, "MIGRATING", importer_id});
  const auto big = pattern(size_t(3) << 20, 11);
  c.put_tensor(key, big.data(), {big.size()}, DType::U8);  // the owner says ASK: it lands on the importer
  CHECK_THROWS_WITH(owner->command({"EXISTS", key}), Catch::StartsWith("ASK " + slot));  // not there
  importer->command({"ASKING"});
  CHECK(importer->command({"EXISTS", key})->integer == 1);
  std::vector<uint8_t> out(big.size());
  c.unpack_tensor(key, out.data(), {big.size()}, DType::U8);
  CHECK(out == big);
  CHECK(c.tensor_exists(key));
  CHECK(c.get_tensors({key}).at(0).bytes() == big.size());
  c.delete_tensor(key);
  CHECK_FALSE(c.tensor_exists(key));
  for (auto& n : nodes) n->command({"CLUSTER", "SETSLOT", slot, "STABLE"});
}

TEST_CASE("pipelined small tensors", "[tensor]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  std::vector<std::vector<float>> data;
  std::vector<TensorRef> refs;
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) data.push_back(std::vector<float>(256, static_cast<float>(i)));
  for (int i = 0; i < 200; ++i) {
    names.push_back("small_" + std::to_string(i));
    refs.push_back({names.back(), data[i].data(), {256}, DType::F32});
  }
  c.put_tensors(refs);
  const auto back = c.get_tensors(names);
  REQUIRE(back.size() == 200);
  CHECK(back[123].as<float>()[255] == 123.0f);
}

TEST_CASE("authentication and unreachable databases fail clearly and quickly", "[errors]") {
  const std::string address = env("SSDB");
  if (!env("SSDB_PASSWORD").empty()) {
    CHECK_THROWS_AS(Client(address, "wrong-password"), AuthError);
    CHECK_THROWS_WITH(Client(address, ""), Catch::Contains("needs a password"));
  }
  const auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(Client("127.0.0.1:1", ""), Catch::Contains("127.0.0.1:1"));
  setenv("SSIM_CONNECT_TIMEOUT", "1", 1);
  CHECK_THROWS_AS(Client("10.255.255.1:6379", ""), ConnectionError);
  unsetenv("SSIM_CONNECT_TIMEOUT");
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
}

TEST_CASE("interop: C++ writes for Python", "[.interop-write]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  std::vector<double> v(24);
  std::iota(v.begin(), v.end(), 0.5);
  c.put_tensor("from_cpp", v.data(), {2, 3, 4}, DType::F64);
  const auto big = pattern(size_t(3) << 20, 77);
  c.put_tensor("from_cpp_big", big.data(), {1024, 3072}, DType::U8);
  Dataset ds("cpp_dataset");
  std::vector<int16_t> s = {-1, 2, -3};
  ds.add_tensor("s", s.data(), {3}, DType::I16);
  ds.add_meta_string("origin", "c++");
  c.put_dataset(ds);
}

TEST_CASE("interop: C++ reads what Python wrote", "[.interop-read]") {
  EnvScope plain(nullptr, nullptr);
  Client c;
  const Tensor t = c.get_tensor("from_python");
  CHECK(t.dtype() == DType::F32);
  CHECK(t.dims() == std::vector<uint64_t>{4, 5});
  CHECK(t.as<float>()[19] == 19.0f);
  const Tensor big = c.get_tensor("from_python_big");
  CHECK(big.dims() == std::vector<uint64_t>{2048, 1024});
  CHECK(big.as<int32_t>()[2048 * 1024 - 1] == 2048 * 1024 - 1);
  const Dataset ds = c.get_dataset("py_dataset");
  CHECK(ds.get_meta_strings("origin") == std::vector<std::string>{"python"});
  CHECK(ds.get_tensor("flags").dtype() == DType::Bool);
}
