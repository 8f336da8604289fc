// ssim logs [EXP] ENTITY [--stderr] [--follow]: an entity's output, like cat or tail -f.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "lib/session/current_state.hpp"
#include "lib/session/experiment_ref.hpp"
#include "apps/ssim/verbs.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"
#include "lib/util/utf8.hpp"

#include <nlohmann/json.hpp>

namespace ssim::app {
using namespace ssim::session;

namespace {
struct LogsOptions {
  std::vector<std::string> words;
  bool stderr_ = false;
  bool follow = false;
  bool json = false;
};

// Copies what `fd` has beyond its current offset to stdout; returns whether any came.
bool drain(int fd) {
  char buf[65536];
  bool any = false;
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    std::cout.write(buf, n);
    any = true;
  }
  std::cout.flush();
  return any;
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
    const std::string name = o->words.back();
    auto m = state::load_manifest(path);
    const state::EntityRecord* e = m.find(name);
    if (!e) throw UsageError("no entity " + name + " in experiment " + m.experiment);
    const std::string file = e->run_dir + "/" + name + (o->stderr_ ? ".err" : ".out");
    if (o->json) {
      const auto text = read_file(file);
      if (!text) throw UsageError(name + " has no output yet (" + file + ")");
      std::cout << nlohmann::json{{"entity", name}, {"stream", o->stderr_ ? "err" : "out"}, {"file", file},
                                  {"data", sanitized_utf8(*text, true)}}
                       .dump()
                << "\n";
      return 0;
    }
    int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 && !o->follow) throw UsageError(name + " has no output yet (" + file + ")");
    if (fd >= 0) drain(fd);
    while (o->follow) {
      if (fd < 0) fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
      const bool got = fd >= 0 && drain(fd);
      if (!got) {
        const auto s = current_state(path);
        const auto* now = s.manifest.find(name);
        if (now && state::is_terminal(now->status)) {
          if (fd >= 0) drain(fd);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));  // tail -f's pace
      }
    }
    if (fd >= 0) ::close(fd);
    return 0;
  };
}

}  // namespace ssim::app
