// ssim dashboard [EXP ...] [--port P] [--bind ADDR]: a live web page of experiments,
// served by ssim itself until Ctrl-C. Bound to 127.0.0.1 by default, and every request
// needs the random token of the printed URL, so other users of a login node cannot read
// it; reach it from a laptop with ssh -L. Read-only.
#include <iostream>
#include <memory>

#include "apps/ssim/dashboard_server.hpp"
#include "lib/session/experiment_ref.hpp"
#include "apps/ssim/verbs.hpp"
#include "lib/util/random_hex.hpp"

namespace ssim::app {
using namespace ssim::session;

namespace {
struct DashboardOptions {
  std::vector<std::string> experiments;
  int port = 0;
  std::string bind = "127.0.0.1";
};
}  // namespace

Action add_dashboard(CLI::App& app) {
  auto o = std::make_shared<DashboardOptions>();
  auto* cmd = app.add_subcommand("dashboard", "Serve a live web dashboard of experiments (read-only)");
  cmd->add_option("EXP", o->experiments, "experiments to show (default: every one you ran)");
  cmd->add_option("--port", o->port, "TCP port (default: any free one)")->check(CLI::Range(0, 65535));
  cmd->add_option("--bind", o->bind, "address to listen on (default 127.0.0.1: this machine only)");
  return [o] {
    Dashboard d;
    d.token = random_hex(16, "the dashboard token");
    for (const auto& e : o->experiments) d.experiments.push_back(resolve_experiment(e));
    serve_dashboard(d, o->bind, o->port, [&](int port) {
      const std::string host = o->bind == "0.0.0.0" || o->bind == "::" ? "HOST" : o->bind;
      std::cout << "http://" << (host.find(':') != std::string::npos ? "[" + host + "]" : host) << ":" << port
                << "/?token=" << d.token << std::endl;
      if (o->bind != "127.0.0.1" && o->bind != "::1" && o->bind != "localhost")
        std::cerr << "ssim: warning: listening on " << o->bind
                  << ", not only this machine; the token is all that guards it\n";
      std::cerr << "ssim: serving " << (d.experiments.empty() ? "every experiment you ran" : "the experiments named")
                << " until Ctrl-C; from a laptop: ssh -L " << port << ":localhost:" << port << " THIS_HOST\n";
    });
    return 0;
  };
}

}  // namespace ssim::app
