#include <catch2/catch.hpp>

#include <fstream>

#include "lib/session/logs.hpp"
#include "lib/util/errors.hpp"
#include "tests/unit/helpers.hpp"

using namespace ssim;

TEST_CASE("logs: output is read whole, in pieces, or in chunks from an offset") {
  test::TempDir dir;
  const session::EntityOutput out{"m", "out", (dir.path / "m.out").string()};
  CHECK_THROWS_AS(session::read_output(out), UsageError);  // nothing written yet
  CHECK(session::read_output_chunk(out, 7, 4).data.empty());
  CHECK(session::read_output_chunk(out, 7, 4).next == 7);
  std::ofstream(out.file) << "0123456789";
  CHECK(session::read_output(out) == "0123456789");
  std::string copied;
  session::copy_output(out, [&](std::string_view piece) { copied += piece; });
  CHECK(copied == "0123456789");
  const auto first = session::read_output_chunk(out, 0, 4);
  CHECK(first.data == "0123");
  const auto second = session::read_output_chunk(out, first.next, 100);
  CHECK(second.data == "456789");
  CHECK(second.next == 10);
  const auto rewritten = session::read_output_chunk(out, 50, 3);  // a new attempt wrote a shorter file
  CHECK(rewritten.offset == 0);
  CHECK(rewritten.data == "012");
}
