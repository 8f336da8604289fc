#include "lib/client/dataset.hpp"

#include <catch2/catch.hpp>
#include <map>

#include "lib/client/errors.hpp"

using namespace ssim::client;

namespace {
std::string bytes(std::initializer_list<int> b) {
  std::string out;
  for (int c : b) out += static_cast<char>(c);
  return out;
}
}  // namespace

// The bytes SmartRedis 0.6.1 wrote for these fields (tests/fixtures/smartredis/python.ndjson).
TEST_CASE("dataset: metadata in SmartRedis's encoding, read and written the same") {
  const std::map<std::string, std::string> fields = {
      {"label", bytes({7, 5, 0, 0, 0, 0, 0, 0, 0}) + "first" + bytes({6, 0, 0, 0, 0, 0, 0, 0}) + "second"},
      {"step", bytes({4, 7, 0, 0, 0, 0, 0, 0, 0})},
      {"f32", bytes({2, 0, 0, 0xc0, 0x3f})},
      {"i32", bytes({3, 0xfd, 0xff, 0xff, 0xff})},
      {"u64", bytes({6, 5, 0, 0, 0, 0, 0, 0, 0})},
      {".tensor_names", bytes({7, 1, 0, 0, 0, 0, 0, 0, 0}) + "t" + bytes({1, 0, 0, 0, 0, 0, 0, 0}) + "u"},
      {".COMPLETE", "1"},
  };
  Dataset ds("ds");
  CHECK(ds.load_meta_fields(fields) == std::vector<std::string>{"t", "u"});
  CHECK(ds.get_meta_strings("label") == std::vector<std::string>{"first", "second"});
  CHECK(ds.get_meta_scalars("step") == std::vector<double>{7});
  CHECK(ds.get_meta_scalars("f32") == std::vector<double>{1.5});
  CHECK(ds.get_meta_scalars("i32") == std::vector<double>{-3});
  CHECK(ds.get_meta_scalars("u64") == std::vector<double>{5});
  // Written back byte for byte, each field in its own type.
  for (const auto& [field, value] : ds.meta_fields())
    if (field != ".tensor_names") CHECK(value == fields.at(field));
}

TEST_CASE("dataset: ssim's own scalars are SmartRedis's float64 and int64") {
  Dataset ds("d");
  ds.add_meta_scalar("dt", 0.25);
  ds.add_meta_scalar("n", int64_t{3});
  std::map<std::string, std::string> fields;
  for (const auto& [k, v] : ds.meta_fields()) fields[k] = v;
  CHECK(fields.at("dt") == bytes({1, 0, 0, 0, 0, 0, 0, 0xd0, 0x3f}));
  CHECK(fields.at("n") == bytes({4, 3, 0, 0, 0, 0, 0, 0, 0}));
  CHECK(fields.at(".tensor_names") == bytes({7}));
  Dataset broken("b");
  CHECK_THROWS_AS(broken.load_meta_fields({{"x", bytes({7, 9, 0, 0, 0, 0, 0, 0, 0}) + "ab"}}), TypeMismatch);
  CHECK_THROWS_AS(broken.load_meta_fields({{"y", bytes({9, 1})}}), TypeMismatch);
}
