#include "lib/util/peer_uid.hpp"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace ssim {

namespace {

// The peer's socket is the one whose source is our destination and the other way round:
// ask the kernel for exactly that 4-tuple.
std::optional<uid_t> by_sock_diag(const sockaddr_storage& local, const sockaddr_storage& peer) {
  const int nl = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) return std::nullopt;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;
  inet_diag_req_v2& r = message.request;
  r.sdiag_family = static_cast<uint8_t>(peer.ss_family);
  r.sdiag_protocol = IPPROTO_TCP;
  r.idiag_states = ~0u;
  r.id.idiag_cookie[0] = r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  if (peer.ss_family == AF_INET) {
    const auto& p = reinterpret_cast<const sockaddr_in&>(peer);
    const auto& l = reinterpret_cast<const sockaddr_in&>(local);
    r.id.idiag_sport = p.sin_port;
    r.id.idiag_dport = l.sin_port;
    std::memcpy(r.id.idiag_src, &p.sin_addr, 4);
    std::memcpy(r.id.idiag_dst, &l.sin_addr, 4);
  } else {
    const auto& p = reinterpret_cast<const sockaddr_in6&>(peer);
    const auto& l = reinterpret_cast<const sockaddr_in6&>(local);
    r.id.idiag_sport = p.sin6_port;
    r.id.idiag_dport = l.sin6_port;
    std::memcpy(r.id.idiag_src, &p.sin6_addr, 16);
    std::memcpy(r.id.idiag_dst, &l.sin6_addr, 16);
  }
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  std::optional<uid_t> uid;
  if (::sendto(nl, &message, sizeof message, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) ==
      static_cast<ssize_t>(sizeof message)) {
    alignas(nlmsghdr) char buffer[8192];
    const ssize_t n = ::recv(nl, buffer, sizeof buffer, 0);
    auto* h = reinterpret_cast<nlmsghdr*>(buffer);
    if (n > 0 && NLMSG_OK(h, static_cast<unsigned>(n)) && h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
      const auto* answer = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
      uid = answer->idiag_uid;
    }
  }
  ::close(nl);
  return uid;
}

// /proc/net/tcp: "sl local_address rem_address st ... uid ..." with addresses as hex
// "ADDR:PORT" (the address in the kernel's byte order). The peer's row has its own port
// as the local one and ours as the remote one.
std::optional<uid_t> by_proc(const sockaddr_storage& local, const sockaddr_storage& peer) {
  if (peer.ss_family != AF_INET) return std::nullopt;
  const auto& p = reinterpret_cast<const sockaddr_in&>(peer);
  const auto& l = reinterpret_cast<const sockaddr_in&>(local);
  char want_local[32], want_remote[32];
  std::snprintf(want_local, sizeof want_local, "%08X:%04X", p.sin_addr.s_addr, ntohs(p.sin_port));
  std::snprintf(want_remote, sizeof want_remote, "%08X:%04X", l.sin_addr.s_addr, ntohs(l.sin_port));
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local_address, remote_address, state, queues, timer, retransmits;
    uid_t uid = 0;
    if (!(fields >> slot >> local_address >> remote_address >> state >> queues >> timer >> retransmits >> uid))
      continue;
    if (local_address == want_local && remote_address == want_remote) return uid;
  }
  return std::nullopt;
}

}  // namespace

std::optional<uid_t> tcp_peer_uid(int fd) {
  sockaddr_storage local{}, peer{};
  socklen_t local_size = sizeof local, peer_size = sizeof peer;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0)
    return std::nullopt;
  if (peer.ss_family != AF_INET && peer.ss_family != AF_INET6) return std::nullopt;
  if (auto uid = by_sock_diag(local, peer)) return uid;
  return by_proc(local, peer);
}

}  // namespace ssim
