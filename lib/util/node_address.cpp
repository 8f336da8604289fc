#include "lib/util/node_address.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <stdexcept>

namespace ssim {

namespace {

std::string text_of(const sockaddr* a) {
  char buf[INET_ADDRSTRLEN] = {0};
  inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a)->sin_addr, buf, sizeof buf);
  return buf;
}

bool loopback(const std::string& address) { return address.rfind("127.", 0) == 0; }

// The first IPv4 address of an interface that is up and not loopback, or "".
std::string first_outside_address() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* i = list; i && found.empty(); i = i->ifa_next)
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !loopback(text_of(i->ifa_addr)))
      found = text_of(i->ifa_addr);
  freeifaddrs(list);
  return found;
}

}  // namespace

std::string resolve_bind_address(const std::string& interface, bool local) {
  if (interface.empty()) {
    if (local) return "127.0.0.1";
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_INET;
    if (getaddrinfo(host, nullptr, &hints, &res) != 0 || !res)
      throw std::runtime_error(std::string("cannot resolve this node's hostname ") + host);
    std::string address = text_of(res->ai_addr);
    freeaddrinfo(res);
    // Other nodes cannot reach a loopback address.
    if (loopback(address))
      if (const std::string outside = first_outside_address(); !outside.empty()) address = outside;
    return address;
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) throw std::runtime_error("cannot list network interfaces");
  std::string found, names;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (names.find(std::string(" ") + i->ifa_name + ",") == std::string::npos)
      names += std::string(" ") + i->ifa_name + ",";
    if (interface == i->ifa_name && found.empty()) found = text_of(i->ifa_addr);
  }
  freeifaddrs(list);
  if (found.empty()) {
    if (!names.empty()) names.pop_back();
    throw std::runtime_error("no IPv4 address on interface " + interface + " (this node has:" + names + ")");
  }
  return found;
}

int free_port_on(const std::string& address) {
  // Seeded once: a random_device opened per call was a tenth of the run's time with a
  // lone rank's port chosen at each of a million members' starts.
  static thread_local std::mt19937 gen(std::random_device{}());
  std::uniform_int_distribution<int> pick(20000, 32767);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int port = pick(gen);
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, address.c_str(), &sa.sin_addr);
    const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
    close(fd);
    if (ok) return port;
  }
  return 0;
}

}  // namespace ssim
