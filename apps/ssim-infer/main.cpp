// ssim-infer: the inference service beside one database shard (docs/inference.md).
// Started and stopped by the shard's `ssim _database` step when the experiment says
// `orchestrator: {inference: true}`; runs TorchScript models and scripts stored in the
// database on tensors stored there, for callers of run_model / run_script.
//
//   ssim-infer --db HOST:PORT --listen HOST --run-dir DIR [--cluster] [--threads N]
//              [--db-socket PATH]   (the shard's Unix socket: the service's own way to it)
//   (the database's password in SSDB_PASSWORD)
#include <ATen/Parallel.h>
#include <torch/script.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <thread>

#include "apps/ssim-infer/model_cache.hpp"
#include "apps/ssim-infer/registration.hpp"
#include "apps/ssim-infer/request_session.hpp"
#include "lib/client/resp_server.hpp"
#include "lib/orchestrator/inference_files.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/proc_stat.hpp"

namespace {

void write_stats(const std::string& path, const ssim::infer::ServiceStats& stats) {
  try {
    ssim::write_file_atomically(path, nlohmann::json{{"models", stats.to_json()}}.dump() + "\n");
  } catch (const std::exception&) {
    // a full disk must not stop the service
  }
}

// inference-stats.json in the run directory, rewritten when something changed.
[[noreturn]] void write_stats_forever(const std::string& path, const ssim::infer::ServiceStats& stats) {
  uint64_t written = 0;
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const uint64_t now = stats.changes();
    if (now == written) continue;
    written = now;
    write_stats(path, stats);
  }
}

// SIGTERM / SIGINT (the database step stopping): the last statistics are written first.
[[noreturn]] void stop_on_signal(sigset_t signals, const std::string& path, const ssim::infer::ServiceStats& stats) {
  int sig = 0;
  ::sigwait(&signals, &sig);
  write_stats(path, stats);
  ::_exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ssim's inference service (started by the database step)"};
  std::string db, listen, run_dir, db_socket;
  bool cluster = false;
  int threads = 0;
  app.add_option("--db", db, "the shard beside which this runs (host:port)")->required();
  app.add_option("--listen", listen, "the address to listen on (the shard's)")->required();
  app.add_option("--run-dir", run_dir, "the shard's run directory")->required();
  app.add_flag("--cluster", cluster, "the shard is part of a cluster");
  app.add_option("--db-socket", db_socket, "the shard's Unix socket, when it has one");
  app.add_option("--threads", threads, "libtorch threads per call (0: its default)");
  CLI11_PARSE(app, argc, argv);
  const char* pw = std::getenv("SSDB_PASSWORD");
  const std::string password = pw ? pw : "";
  ::unsetenv("SSDB_PASSWORD");
  if (threads > 0) at::set_num_threads(threads);
  sigset_t stop_signals;  // blocked in every thread; one thread waits for them
  ::sigemptyset(&stop_signals);
  ::sigaddset(&stop_signals, SIGTERM);
  ::sigaddset(&stop_signals, SIGINT);
  ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    ssim::resp::RespServer server(listen, run_dir + "/inference.sock");
    const std::string key = ssim::infer::register_service(
        db, password, cluster, server.address() + (server.unix_path().empty() ? "" : " unix:" + server.unix_path()));
    ssim::infer::ServiceStats stats;
    const std::string local = db_socket.empty() ? "" : "unix:" + db_socket;
    ssim::infer::ModelCache models(db, local, password, stats);
    const ssim::infer::ServiceContext context{db, local, password, &models, &stats};
    ssim::write_file_atomically(ssim::orchestrator::inference_file(run_dir),
                                nlohmann::json{{"pid", ::getpid()},
                                               {"start_ticks", ssim::start_ticks(::getpid())},
                                               {"host", ssim::host_name()},
                                               {"address", server.address()},
                                               {"registry_key", key},
                                               {"started", static_cast<long>(std::time(nullptr))}}
                                        .dump() +
                                    "\n");
    std::cerr << "ssim-infer: serving " << server.address() << " beside the database at " << db << std::endl;
    const std::string stats_file = ssim::orchestrator::inference_stats_file(run_dir);
    std::thread(write_stats_forever, stats_file, std::cref(stats)).detach();
    std::thread(stop_on_signal, stop_signals, stats_file, std::cref(stats)).detach();
    server.serve([&] { return std::make_unique<ssim::infer::RequestSession>(context); });
  } catch (const std::exception& e) {
    std::cerr << "ssim-infer: " << e.what() << std::endl;
    return 3;
  }
}
