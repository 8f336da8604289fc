// ssim logs [EXP] ENTITY [--stderr] [--follow]: an entity's output, like cat or tail -f.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "apps/ssim/verbs.hpp"
#include "lib/session/experiment_ref.hpp"
#include "lib/session/logs.hpp"
#include "lib/util/utf8.hpp"

namespace ssim::app {
using namespace ssim::session;

namespace {
struct LogsOptions {
  std::vector<std::string> words;
  bool stderr_ = false;
  bool follow = false;
  bool json = false;
};

void to_stdout(std::string_view piece) {
  std::cout.write(piece.data(), static_cast<std::streamsize>(piece.size()));
  std::cout.flush();
}
}  // namespace

Action add_logs(CLI::App& app) {
  auto o = std::make_shared<LogsOptions>();
  auto* cmd = app.add_subcommand("logs", "Print an entity's output");
  cmd->add_option("EXP_ENTITY", o->words, "[EXP] ENTITY")->required()->expected(1, 2);
  cmd->add_flag("--stderr", o->stderr_, "print standard error instead of standard output");
  auto* follow = cmd->add_flag("-f,--follow", o->follow, "keep printing new output until the entity ends");
  cmd->add_flag("--json", o->json, "one JSON object: entity, stream, file, data (as valid UTF-8)")->excludes(follow);
  return [o] {
    const std::string path = resolve_experiment(o->words.size() == 2 ? o->words[0] : "");
    const EntityOutput output = entity_output(path, o->words.back(), o->stderr_);
    if (o->json) {
      std::cout << nlohmann::json{{"entity", output.entity},
                                  {"stream", output.stream},
                                  {"file", output.file},
                                  {"data", sanitized_utf8(read_output(output), true)}}
                       .dump()
                << "\n";
    } else if (o->follow) {
      follow_output(path, output, to_stdout);
    } else {
      copy_output(output, to_stdout);
    }
    return 0;
  };
}

}  // namespace ssim::app
