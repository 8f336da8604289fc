// The experiment file as a report or a page shows it: secrets masked where they are
// written, everything else byte for byte.
#include "lib/session/secrets.hpp"

#include <catch2/catch.hpp>

using ssim::session::shown_yaml;

namespace {
std::string shown(const std::string& text, int expect_masked) {
  int masked = -1;
  const std::string out = shown_yaml(text, masked);
  CHECK(masked == expect_masked);
  return out;
}
}  // namespace

TEST_CASE("shown_yaml: secrets in flow and block maps, quoted or not, are masked in place") {
  const std::string text =
      "experiment:\n"
      "  name: mk   # a comment stays\n"
      "  env: {API_TOKEN: tok-S1, DB_PASSWORD: \"pw S2\", PLAIN: visible}\n"
      "orchestrator:\n"
      "  port: 6780\n"
      "  password: 'it''s S3'\n"
      "models:\n"
      "  - name: m\n"
      "    exe: /bin/true\n"
      "    args: [--url, \"redis://user:S4@cn1:6379/0\"]\n"
      "    env:\n"
      "      MY_SECRET: S5\n"
      "      URL: redis://:S6@cn1:6379\n"
      "      aws_key: S7\n";
  const std::string out = shown(text, 7);
  for (const char* s : {"S1", "S2", "S3", "S4", "S5", "S6", "S7"}) CHECK(out.find(s) == std::string::npos);
  CHECK(out ==
        "experiment:\n"
        "  name: mk   # a comment stays\n"
        "  env: {API_TOKEN: ********, DB_PASSWORD: \"********\", PLAIN: visible}\n"
        "orchestrator:\n"
        "  port: 6780\n"
        "  password: '********'\n"
        "models:\n"
        "  - name: m\n"
        "    exe: /bin/true\n"
        "    args: [--url, \"********\"]\n"
        "    env:\n"
        "      MY_SECRET: ********\n"
        "      URL: redis://:********@cn1:6379\n"
        "      aws_key: ********\n");
}

TEST_CASE("shown_yaml: a block scalar secret goes whole, the next key stays") {
  const std::string out = shown("env:\n  TOKEN: |\n    line one S1\n    line two S2\n  NEXT: 1\n", 1);
  CHECK(out.find("S1") == std::string::npos);
  CHECK(out.find("S2") == std::string::npos);
  CHECK(out.find("  NEXT: 1\n") != std::string::npos);
}

TEST_CASE("shown_yaml: nothing secret, nothing changed, and a text that does not parse is not shown") {
  const std::string plain = "experiment: {name: x}\nmodels:\n  - {name: m, exe: /bin/true, args: [a, b]}\n";
  CHECK(shown(plain, 0) == plain);
  int masked = 0;
  const std::string broken = shown_yaml("env: {TOKEN: S1\n", masked);
  CHECK(broken.find("S1") == std::string::npos);
  CHECK(broken.find("not shown") != std::string::npos);
}
