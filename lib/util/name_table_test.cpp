#include "lib/util/name_table.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using ssim::NameTable;
using Found = NameTable<uint32_t>::Found;

TEST_CASE("name table: names found through the records they index, misses and stale entries told apart") {
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) names.push_back("m_" + std::to_string(i));
  const auto name_of = [&](uint32_t i) { return std::string_view(names[i]); };
  NameTable<uint32_t> table;
  for (uint32_t i = 0; i < names.size(); ++i) table.insert(names[i], i, name_of);
  CHECK(table.size() == 5000);
  uint32_t at = 0;
  for (uint32_t i = 0; i < names.size(); i += 7) {
    REQUIRE(table.find(names[i], name_of, at) == Found::Yes);
    CHECK(at == i);
  }
  CHECK(table.find("m_5000", name_of, at) == Found::No);
  CHECK(table.find("", name_of, at) == Found::No);

  table.insert("m_3", 3, name_of);  // again: replaced, not added
  CHECK(table.size() == 5000);

  names[42] = "renamed";  // what the table indexed changed under it
  CHECK(table.find("m_42", name_of, at) == Found::Stale);
  CHECK(table.find("renamed", name_of, at) != Found::Yes);
  table.clear();
  CHECK(table.find("m_1", name_of, at) == Found::No);
}
