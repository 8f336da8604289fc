#include <catch2/catch.hpp>

#include "lib/util/split.hpp"

using namespace ssim;

TEST_CASE("split keeps empty fields, join is its inverse") {
  const auto parts = split("a,,b,", ',');
  CHECK(parts == std::vector<std::string>{"a", "", "b", ""});
  CHECK(join(parts, ",") == "a,,b,");
  CHECK(join({}, ",") == "");
  CHECK(join({"n1"}, ",") == "n1");
  CHECK(join({"x", "y"}, ", ") == "x, y");
}
