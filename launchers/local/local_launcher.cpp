#include "launchers/local/local_launcher.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "launchers/local/proc.hpp"
#include "lib/util/atomic_file.hpp"
#include "lib/util/errors.hpp"

namespace ssim::launchers {

namespace bp = boost::process;
namespace fs = std::filesystem;
using state::Status;

std::string status_file(const std::string& run_dir) { return run_dir + "/.ssim-status.json"; }
std::string cancel_marker(const std::string& run_dir) { return run_dir + "/.ssim-cancelled"; }

std::string LocalLauncher::default_supervisor() {
  if (const char* s = std::getenv("SSIM_SUPERVISE"); s && *s) return s;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "ssim-supervise").string();
}

LocalLauncher::LocalLauncher(std::string supervisor)
    : supervisor_(std::move(supervisor)), host_(current_host()) {}

std::vector<std::string> LocalLauncher::command(const plan::Step& step) const {
  return local_command(step, host_);
}

JobRef LocalLauncher::start(const LaunchRequest& r) {
  // A rerun (--resume) must not read the previous attempt's files.
  ::unlink(status_file(r.run_dir).c_str());
  ::unlink(cancel_marker(r.run_dir).c_str());
  std::vector<std::string> args = {status_file(r.run_dir), r.run_dir, r.run_dir + "/" + r.name + ".out",
                                   r.run_dir + "/" + r.name + ".err", "--"};
  args.insert(args.end(), r.argv.begin(), r.argv.end());
  bp::environment env = boost::this_process::environment();
  for (const auto& [k, v] : r.env) env[k] = v;
  try {
    bp::child child(bp::exe = supervisor_, bp::args = args, env, bp::std_in < bp::null,
                    bp::std_out > bp::null, bp::std_err > bp::null);
    const int pid = child.id();
    child.detach();  // reaped in poll(); the job must outlive this object
    return JobRef{std::to_string(pid), r.name, r.run_dir};
  } catch (const bp::process_error& e) {
    throw EnvironmentError("cannot start " + r.name + " with " + supervisor_ + ": " + e.what());
  }
}

namespace {

JobStatus from_exit(const nlohmann::json& j, bool cancelled) {
  JobStatus s;
  s.start = j.value("start", 0.0);
  s.end = j.value("end", 0.0);
  if (j.contains("exit_code") && !j["exit_code"].is_null()) s.exit_code = j["exit_code"].get<int>();
  if (j.contains("signal") && !j["signal"].is_null()) s.signal = j["signal"].get<int>();
  s.reason = j.value("error", "");
  if (cancelled) {
    s.status = Status::Cancelled;
    if (s.reason.empty()) s.reason = "stopped by ssim";
  } else if (s.exit_code && *s.exit_code == 0) {
    s.status = Status::Completed;
  } else {
    s.status = Status::Failed;
    if (s.signal && s.reason.empty()) s.reason = std::string("killed by ") + signal_name(*s.signal);
    else if (s.exit_code && s.reason.empty()) s.reason = "exit code " + std::to_string(*s.exit_code);
  }
  return s;
}

JobStatus poll_one(const JobRef& job) {
  const int pid = std::atoi(job.id.c_str());
  if (pid > 0) {
    int wstatus = 0;
    ::waitpid(pid, &wstatus, WNOHANG);  // reap our own supervisors; ECHILD otherwise
  }
  const bool cancelled = ::access(cancel_marker(job.run_dir).c_str(), F_OK) == 0;
  const auto text = read_file(status_file(job.run_dir));
  JobStatus s;
  if (!text) {
    // The supervisor has not written yet: still starting, or gone before it could.
    if (process_alive(pid, "")) {
      s.status = Status::Pending;
    } else {
      s.status = cancelled ? Status::Cancelled : Status::Unknown;
      s.reason = cancelled ? "stopped by ssim" : "the supervisor ended before starting the program";
    }
    return s;
  }
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object()) return s;  // Unknown
  if (j.value("state", "") == "exited") return from_exit(j, cancelled);
  s.start = j.value("start", 0.0);
  if (process_alive(pid, j.value("supervisor_start_ticks", ""))) {
    s.status = Status::Running;
  } else if (group_alive(pid)) {
    s.status = Status::Running;
    s.reason = "its supervisor was killed; the program still runs";
  } else {
    s.status = cancelled ? Status::Cancelled : Status::Unknown;
    s.reason = cancelled ? "stopped by ssim" : "its supervisor was killed; the exit status is lost";
  }
  return s;
}

}  // namespace

std::vector<JobStatus> LocalLauncher::poll(std::span<const JobRef> jobs) {
  std::vector<JobStatus> out;
  out.reserve(jobs.size());
  for (const auto& job : jobs) out.push_back(poll_one(job));
  return out;
}

void LocalLauncher::cancel(std::span<const JobRef> jobs, bool force) {
  for (const auto& job : jobs) {
    const int pid = std::atoi(job.id.c_str());
    if (pid <= 1) continue;
    if (::access(cancel_marker(job.run_dir).c_str(), F_OK) != 0)
      write_file_atomically(cancel_marker(job.run_dir), "");
    // The supervisor leads the job's process group; never signal a recycled pid.
    const auto text = read_file(status_file(job.run_dir));
    auto j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    const std::string ticks = j.is_object() ? j.value("supervisor_start_ticks", "") : "";
    if (process_alive(pid, "") && !process_alive(pid, ticks)) continue;
    ::kill(-pid, force ? SIGKILL : SIGTERM);
  }
}

}  // namespace ssim::launchers
