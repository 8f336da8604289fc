#include "lib/util/tar_writer.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace ssim;

namespace {
unsigned checksum_of(const std::string& h) {
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += i >= 148 && i < 156 ? ' ' : static_cast<unsigned char>(h[i]);
  return sum;
}
}  // namespace

TEST_CASE("a tar header carries name, size, mode and a checksum tar accepts") {
  const std::string h = tar_header("exp/train/train.out", 1234, 1700000000);
  REQUIRE(h.size() == 512);
  CHECK(h.substr(0, 19) == "exp/train/train.out");
  CHECK(h.substr(124, 11) == "00000002322");  // 1234 in octal
  CHECK(h[156] == '0');
  CHECK(h.substr(257, 5) == "ustar");
  CHECK(std::stoul(h.substr(148, 6), nullptr, 8) == checksum_of(h));
}

TEST_CASE("a long name is split at a slash into prefix and name, one that cannot be is refused") {
  const std::string dir(120, 'd'), name = dir + "/member_12/member_12.out";
  const std::string h = tar_header(name, 0, 0);
  // At the last slash that leaves a prefix of at most 155 bytes: prefix "d...d/member_12".
  CHECK(h.substr(345, 131) == dir + "/member_12" + std::string(1, '\0'));
  CHECK(h.substr(0, 14) == "member_12.out" + std::string(1, '\0'));
  CHECK_THROWS_AS(tar_header(std::string(300, 'x'), 0, 0), std::invalid_argument);
}

TEST_CASE("an archive is its files padded to blocks, then two empty blocks") {
  std::string out;
  TarWriter tar([&](std::string_view piece) { out.append(piece); });
  tar.add_text("a.txt", "hello", 0);
  CHECK_FALSE(tar.add_file("missing", "/nonexistent/file"));
  tar.finish();
  CHECK(out.size() == 512 + 512 + 1024);
  CHECK(out.substr(512, 5) == "hello");
  CHECK(out.find_first_not_of('\0', 1024) == std::string::npos);
}
