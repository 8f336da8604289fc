#include "lib/state/quick_json.hpp"

#include <catch2/catch.hpp>

using nlohmann::json;
using ssim::state::quick_sax_parse;

namespace {
// nlohmann's own document builder, behind the SAX interface the quick reader tells.
struct Builder : nlohmann::json_sax<json> {
  explicit Builder(json& out) : dom(out, false) {}
  bool null() override { return dom.null(); }
  bool boolean(bool v) override { return dom.boolean(v); }
  bool number_integer(number_integer_t v) override { return dom.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return dom.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) override { return dom.number_float(v, s); }
  bool string(string_t& v) override { return dom.string(v); }
  bool binary(binary_t& v) override { return dom.binary(v); }
  bool start_object(std::size_t n) override { return dom.start_object(n); }
  bool key(string_t& k) override { return dom.key(k); }
  bool end_object() override { return dom.end_object(); }
  bool start_array(std::size_t n) override { return dom.start_array(n); }
  bool end_array() override { return dom.end_array(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
  nlohmann::detail::json_sax_dom_parser<json> dom;
};

// What the quick reader told, built into a document.
std::optional<json> quick(const std::string& text) {
  json out;
  Builder builder(out);
  if (!quick_sax_parse(text, builder)) return std::nullopt;
  return out;
}
}  // namespace

TEST_CASE("quick json: what it takes, it reads as nlohmann does, number kinds included") {
  for (const std::string text :
       {R"({"name":"e_0","pid":32288,"exit_code":0,"signal":null,"start":1795943523.888649,"held":false})",
        R"({"after":[],"params":{"x":"1","y":"b c"},"earlier_attempts":[{"attempt":1,"end":2.5e3}]})",
        R"( {"neg":-17,"big":18446744073709551615,"e":1E-2,"zero":-0,"f":0.5,"t":true} )", R"([])", R"("plain")",
        "  {\n\t\"a\" : [ 1 , 2 ] \r\n}  "}) {
    INFO(text);
    const auto got = quick(text);
    REQUIRE(got);
    const json want = json::parse(text);
    CHECK(*got == want);
    CHECK(got->dump() == want.dump());  // the same kinds: unsigned, integer, float
  }
}

TEST_CASE("quick json: anything else, valid or not, is left to nlohmann") {
  // Valid JSON it does not take (an escape, non-ASCII, a number too large for 64 bits)...
  for (const std::string text : {R"({"a":"q\"uote"})", "{\"a\":\"caf\xc3\xa9\"}", R"({"a":184467440737095516150})"}) {
    INFO(text);
    CHECK_FALSE(quick(text));
    CHECK_NOTHROW(json::parse(text));
  }
  // ...and what is not JSON at all.
  for (const std::string text :
       {R"({"name":"x")", R"({"name":"x"} trailing)", "", R"({"a":01})", R"({"a":1.})", R"({"a":-})", R"({"a":tru})",
        R"({a:1})", R"({"a":1,})", R"([1,2)", "{\"a\":\"tab\there\"}", R"({"a" 1})"}) {
    INFO(text);
    CHECK_FALSE(quick(text));
    CHECK_THROWS(json::parse(text));
  }
}
