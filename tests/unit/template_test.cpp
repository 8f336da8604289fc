#include <catch2/catch.hpp>

#include "lib/generate/configure_file.hpp"
#include "lib/spec/suggest.hpp"
#include "lib/spec/template.hpp"

using namespace ssim;

static std::optional<std::string> lookup(const std::string& n) {
  if (n == "a") return std::string("1");
  if (n == "name") return std::string("x y");
  return std::nullopt;
}

TEST_CASE("substitute replaces $(name), keeps $$ and lone $ literal") {
  CHECK(spec::substitute("$(a)", lookup) == "1");
  CHECK(spec::substitute("pre-$(a)-$(name)", lookup) == "pre-1-x y");
  CHECK(spec::substitute("$$(a)", lookup) == "$(a)");
  CHECK(spec::substitute("cost $5 $HOME", lookup) == "cost $5 $HOME");
  CHECK(spec::substitute("end$", lookup) == "end$");
  CHECK_THROWS_WITH(spec::substitute("$(b)", lookup), Catch::Contains("unknown parameter $(b)"));
  CHECK_THROWS_WITH(spec::substitute("$(a", lookup), Catch::Contains("unclosed"));
}

TEST_CASE("template_refs lists references, not escaped ones") {
  CHECK(spec::template_refs("$(a) $$(b) $(c)") == std::vector<std::string>{"a", "c"});
}

TEST_CASE("configure_text replaces known tags and reports unknown ones") {
  auto c = generate::configure_text("n=;n; m=;m; a;b ;;\n;n;;n;", {{"n", "5"}});
  CHECK(c.text == "n=5 m=;m; a;b ;;\n55");
  CHECK(c.unknown_tags == std::set<std::string>{"m"});
}

TEST_CASE("closest_match suggests near misses only") {
  CHECK(spec::closest_match("lancher", {"launcher", "name"}) == "launcher");
  CHECK(spec::closest_match("copies", {"copy", "symlink"}) == "copy");
  CHECK(spec::closest_match("zzzz", {"launcher", "name"}).empty());
}
