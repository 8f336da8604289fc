// ssim validate FILE: parse, check and plan the experiment; write nothing.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "apps/ssim/cli_options.hpp"
#include "lib/session/failure.hpp"
#include "lib/util/utf8.hpp"
#include "lib/session/load.hpp"
#include "lib/spec/document_json.hpp"
#include "lib/launch/devices.hpp"
#include "lib/launch/container_checks.hpp"
#include "lib/launch/container_gpu_check.hpp"
#include "lib/launch/door_check.hpp"
#include "lib/plan/program_checks.hpp"
#include "lib/plan/exposure.hpp"
#include "lib/plan/program_trust.hpp"
#include "apps/ssim/verbs.hpp"

namespace ssim::app {
using namespace ssim::session;

Action add_validate(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto document = std::make_shared<bool>(false);
  auto open = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("validate", "Check an experiment file; print nothing but errors");
  cmd->add_option("FILE", *file, "experiment YAML file")->required();
  cmd->add_flag("--json", *json, "the verdict as one JSON object on stdout, errors included");
  cmd->add_flag("--document", *document, "with --json: the file's content as JSON too (\"document\")")->needs("--json");
  cmd->add_flag("--open", *open, "as ssim run --open checks it: a database alone is fine");
  add_max_members_option(*cmd);
  return [file, json, document, open] {
    try {
      parse_options().database_alone = *open;
      const Loaded l = load_to_run(*file);
      plan::check_programs(l.spec, l.plan);
      launch::check_containers(l.spec, l.plan);
      launch::check_smartredis_door(l.spec);
      for (const auto& warning : plan::program_warnings(l.spec, l.plan)) std::cerr << warning << "\n";
      for (const auto& warning : launch::container_gpu_warnings(l.spec, l.plan)) std::cerr << warning << "\n";
      for (const auto& warning : plan::exposure_warnings(l.plan)) std::cerr << warning << "\n";
      launch::check_device_variables();
      if (*json) {
        nlohmann::ordered_json verdict{{"file", *file},
                                       {"ok", true},
                                       {"exit_code", 0},
                                       {"experiment", l.plan.name},
                                       {"path", l.plan.path},
                                       {"entities", l.plan.steps.size()},
                                       {"orchestrator", l.plan.database.has_value()}};
        if (*document) verdict["document"] = spec::document_json(*file);
        std::cout << verdict.dump() << "\n";
      } else {
        std::cerr << *file << ": ok (" << l.plan.steps.size() << " entities"
                  << (l.plan.database ? ", orchestrator" : "") << ")\n";
      }
      return 0;
    } catch (...) {
      if (!*json) throw;
      const auto failure = describe_failure(std::current_exception());
      std::cout << nlohmann::json{{"file", *file},
                                  {"ok", false},
                                  {"exit_code", failure.exit_code},
                                  {"error", sanitized_utf8(failure.message, false)}}
                       .dump()
                << "\n";
      return failure.exit_code;
    }
  };
}

}  // namespace ssim::app
