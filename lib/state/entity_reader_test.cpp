#include "lib/state/entity_reader.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace ssim::state;
using nlohmann::json;

namespace {

// Every field, as the manifest writes it, so that two records compare whole.
json fields(EntityRecord r) {
  Manifest m;
  m.entities.push_back(std::move(r));
  return to_json(m)["entities"][0];
}

}  // namespace

TEST_CASE("entity reader: a line read field by field is the record its document gives") {
  const std::vector<std::string> lines = {
      R"({"name":"m_7","type":"member","submitted":1.5,"nodes":"n1,n2","params":{"lr":"0.1","x":"a \"q\""},)"
      R"("ensemble":"m","run_dir":"/r/m_7","after":["db","prep"],"after_any":["x"],"status":"failed",)"
      R"("launcher":"local","job_id":"123:456","pid":456,"native_id":"9.1","exit_code":3,"signal":null,)"
      R"("reason":"exit code 3\nsecond line é","start":1700000000.25,"end":1700000001,"attempt":2,)"
      R"("retry_at":0.0,"held":true,"setup":true,"no_metrics":true,)"
      R"("earlier_attempts":[{"attempt":1,"status":"failed","exit_code":null,"stdout":"m_7.out.1"}],)"
      R"("goal":{"metric":"loss","at_most":0.01,"stop_on_goal":true,)"
      R"("reached":{"value":0.005,"seconds":12.5,"step":40}}})",
      R"({"name":"db_0","type":"database","status":"running","signal":9,"goal":{"metric":"acc","at_least":0.9}})",
      R"({"name":"bare"})",
      R"({})",
      R"({"name":"x","newer":{"nested":[1,{"a":[]}]},"also":[[]],"status":"completed","goal":null})",
      R"({"name":"first","name":"second","pid":1,"pid":2})",
      R"(  {"name":"spaced" , "after" : [ ] }  )",
  };
  for (const auto& line : lines) {
    INFO(line);
    CHECK(fields(entity_from_text(line)) == fields(entity_from_json(json::parse(line))));
  }
  const auto r = entity_from_text(lines[0]);
  CHECK(r.extra().params.at("x") == "a \"q\"");
  CHECK(r.extra().reached->step == 40);
  CHECK(r.setup);
  CHECK_FALSE(entity_from_text(lines[2]).setup);  // none said: no setup lines to check
  CHECK(r.extra().earlier_attempts[0]["stdout"] == "m_7.out.1");
  CHECK(entity_from_text(lines[3]).status == entity_from_json(json::object()).status);  // none said: unknown
}

TEST_CASE("entity reader: what its document would refuse, it refuses the same way") {
  for (const std::string bad :
       {R"({"name":3})", R"({"pid":"x"})", R"({"after":"db"})", R"({"params":{"a":1}})", R"({"exit_code":"1"})",
        R"([1,2])", R"("text")", R"({"name":"x")", R"({"name":"x"} trailing)", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(entity_from_text(bad), json::exception);
  }
}
