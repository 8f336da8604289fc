#include "lib/orchestrator/address.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <random>
#include <filesystem>
#include <stdexcept>

#include "lib/util/atomic_file.hpp"

namespace ssim::orchestrator {

std::string port_holder(int port) {
  // /proc/net/tcp: local_address is HEXIP:HEXPORT, state 0A is LISTEN, inode is field 10.
  std::string inode;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream in(read_file(table).value_or(""));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line) && inode.empty()) {
      std::istringstream f(line);
      std::string sl, local, remote, st, queues, tr, retr, uid, timeout, ino;
      f >> sl >> local >> remote >> st >> queues >> tr >> retr >> uid >> timeout >> ino;
      const auto colon = local.rfind(':');
      if (st != "0A" || colon == std::string::npos) continue;
      if (std::stoi(local.substr(colon + 1), nullptr, 16) == port) inode = ino;
    }
  }
  if (inode.empty()) return "";
  const std::string target = "socket:[" + inode + "]";
  DIR* proc = opendir("/proc");
  if (!proc) return "";
  std::string holder;
  while (dirent* d = readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(d->d_name[0]))) continue;
    const std::string fd_dir = std::string("/proc/") + d->d_name + "/fd";
    DIR* fds = opendir(fd_dir.c_str());
    if (!fds) continue;
    while (dirent* f = readdir(fds)) {
      char link[256];
      const ssize_t n = readlink((fd_dir + "/" + f->d_name).c_str(), link, sizeof link - 1);
      if (n <= 0) continue;
      link[n] = 0;
      if (target == link) {
        std::string comm = read_file(std::string("/proc/") + d->d_name + "/comm").value_or("?\n");
        comm.pop_back();
        holder = comm + " (pid " + d->d_name + ")";
        // An ssim database: say whose, and how to end it.
        const std::string env = read_file(std::string("/proc/") + d->d_name + "/environ").value_or("");
        std::string run_dir, experiment;
        for (size_t at = 0; at < env.size();) {
          const size_t end = env.find('\0', at);
          const std::string kv = env.substr(at, end == std::string::npos ? std::string::npos : end - at);
          if (kv.rfind("SSIM_RUN_DIR=", 0) == 0) run_dir = kv.substr(13);
          if (kv.rfind("SSIM_EXPERIMENT=", 0) == 0) experiment = kv.substr(16);
          if (end == std::string::npos) break;
          at = end + 1;
        }
        if (run_dir.empty()) {
          // redis-server writes its process title over its environment: its working
          // directory, the shard's run directory, says whose it is.
          char cwd[4096];
          const ssize_t n = readlink((std::string("/proc/") + d->d_name + "/cwd").c_str(), cwd, sizeof cwd - 1);
          if (n > 0) {
            cwd[n] = 0;
            if (::access((std::string(cwd) + "/address.json").c_str(), F_OK) == 0) run_dir = cwd;
          }
        }
        if (!run_dir.empty()) {
          std::filesystem::path shard(run_dir);
          if (shard.filename().string().rfind("orchestrator_", 0) == 0) shard = shard.parent_path();
          if (experiment.empty()) experiment = shard.parent_path().filename().string();
        }
        if (!run_dir.empty() && !experiment.empty()) {
          std::filesystem::path shard(run_dir);  // <path>/orchestrator or <path>/orchestrator/orchestrator_N
          if (shard.filename().string().rfind("orchestrator_", 0) == 0) shard = shard.parent_path();
          const std::string path = shard.parent_path().string();
          holder += ", the database of experiment " + experiment + " (" + path + "); end it with ssim stop " + path +
                    ", or give this one another port (or port: auto)";
        }
        break;
      }
    }
    closedir(fds);
    if (!holder.empty()) break;
  }
  closedir(proc);
  return holder;
}

int free_port_base(const std::string& address, int span, bool bus) {
  std::random_device rd;
  std::mt19937 gen(rd());
  std::uniform_int_distribution<int> pick(20000, 55000 - span);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int base = pick(gen);
    bool ok = true;
    for (int i = 0; i < span && ok; ++i)
      ok = port_problem(address, base + i).empty() && (!bus || port_problem(address, base + i + 10000).empty());
    if (ok) return base;
  }
  throw std::runtime_error("no free port for the database on " + address + " after 200 tries");
}

std::string port_problem(const std::string& address, int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string("cannot create a socket: ") + std::strerror(errno);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, address.c_str(), &sa.sin_addr);
  // SO_REUSEADDR, as the server itself sets: a port left in TIME_WAIT is usable, one
  // with a listener is not.
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const int rc = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  const int err = errno;
  close(fd);
  if (rc == 0) return "";
  std::string message = "port " + std::to_string(port) + " on " + address + " is not available: " + std::strerror(err);
  if (err == EADDRINUSE) {
    message = "port " + std::to_string(port) + " on " + address + " is already in use";
    const std::string who = port_holder(port);
    if (!who.empty()) message += " by " + who;
  }
  return message;
}

}  // namespace ssim::orchestrator
