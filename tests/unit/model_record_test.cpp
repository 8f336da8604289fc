#include "lib/client/model_record.hpp"

#include <catch2/catch.hpp>
#include <map>

#include "lib/client/errors.hpp"
#include "lib/client/hash_slot.hpp"

using namespace ssim::client;

TEST_CASE("a model record survives HSET and HGETALL, blob bytes included") {
  ModelRecord r;
  r.blob = std::string("PK\0\x01torch", 9);
  r.device = "GPU:1";
  r.batch_size = 8;
  r.min_batch_size = 4;
  r.min_batch_timeout_ms = 20;
  r.tag = "v2";
  r.inputs = {"a", "b"};
  r.version = "42";
  std::vector<std::string> storage;
  const auto fields = model_fields(r, storage);
  REQUIRE(fields.size() % 2 == 0);
  std::map<std::string, std::string> hash;
  for (size_t i = 0; i < fields.size(); i += 2) hash[std::string(fields[i])] = std::string(fields[i + 1]);
  const ModelRecord back = model_from_fields("ssim.model.m", hash);
  CHECK(back.kind == ModelKind::Model);
  CHECK(back.blob == r.blob);
  CHECK(back.device == "GPU:1");
  CHECK(back.batch_size == 8);
  CHECK(back.min_batch_size == 4);
  CHECK(back.min_batch_timeout_ms == 20);
  CHECK(back.tag == "v2");
  CHECK(back.inputs == std::vector<std::string>{"a", "b"});
  CHECK(back.outputs.empty());
  CHECK(back.version == "42");
}

TEST_CASE("a hash that is not a record is refused with its key") {
  CHECK_THROWS_WITH(model_from_fields("ssim.model.x", {{"kind", "tensor"}, {"blob", "b"}}),
                    "\"ssim.model.x\" is not a model or script stored by ssim");
  CHECK_THROWS_AS(model_from_fields("ssim.model.x", {{"kind", "model"}}), ClientError);
}

TEST_CASE("devices are CPU, GPU or GPU:n, in any case") {
  CHECK(normalise_device("cpu") == "CPU");
  CHECK(normalise_device("gpu") == "GPU");
  CHECK(normalise_device("GPU:03") == "GPU:3");
  for (const char* bad : {"TPU", "GPU:", "GPU:x", "GPU:1234", "", "CPU:0"})
    CHECK_THROWS_AS(normalise_device(bad), ClientError);
}

TEST_CASE("each shard's registry key hashes into that shard's own slots") {
  // A single server owns every slot: the first key.
  CHECK(inference_registry_key([](uint16_t) { return true; }) == "{ssim.inference.0}");
  // Three shards, as redis-cli --cluster create splits the slots.
  const std::vector<std::pair<int, int>> shards = {{0, 5460}, {5461, 10922}, {10923, 16383}};
  std::vector<std::string> keys;
  for (const auto& [a, b] : shards) {
    const std::string key = inference_registry_key([&](uint16_t s) { return s >= a && s <= b; });
    const int slot = hash_slot(key);
    CHECK(slot >= a);
    CHECK(slot <= b);
    keys.push_back(key);
  }
  CHECK(keys[0] != keys[1]);
  CHECK(keys[1] != keys[2]);
  // A shard owning one slot still gets a key.
  const std::string lone = inference_registry_key([](uint16_t s) { return s == 12345; });
  CHECK(hash_slot(lone) == 12345);
}
