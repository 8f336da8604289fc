#include "lib/client/resp_server.hpp"

#include "lib/client/resp_request.hpp"
#include "lib/client/resp_writer.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ssim::resp {

namespace {

bool write_all(int fd, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void append_encoded(std::string& out, const Reply& r) {
  if (r.error) {
    const bool prefixed =
        r.text.rfind("ERR", 0) == 0 || r.text.rfind("NOAUTH", 0) == 0 || r.text.rfind("WRONGPASS", 0) == 0;
    append_error(out, prefixed ? r.text : "ERR " + r.text);
  } else if (r.bulk) {
    append_bulk(out, r.text);
  } else {
    append_simple(out, r.text);
  }
}

constexpr size_t kHoldBack = 1 << 16;  // replies gathered while a pipeline's requests wait

void serve_connection(int fd, std::unique_ptr<Session> session) {
  RequestReader reader(fd);
  std::vector<std::string> argv;
  std::string out;
  while (reader.next(argv)) {
    Reply r = session->handle(argv);
    if (!r.raw) {
      append_encoded(out, r);
    } else if (r.payload.empty() && r.tail.empty() && out.empty()) {
      out = std::move(r.text);
    } else {
      out += r.text;
      if (!r.payload.empty()) {  // a large reply: what is gathered, then its bytes as they are
        if (!write_all(fd, out) || !write_all(fd, r.payload)) break;
        out.clear();
      }
      out += r.tail;
    }
    if (reader.more_buffered() && out.size() < kHoldBack) continue;
    if (!write_all(fd, out)) break;
    out.clear();
  }
  ::close(fd);
}

}  // namespace

RespServer::RespServer(const std::string& host, const std::string& unix_path) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), "0", &hints, &res) != 0 || !res)
    throw std::runtime_error("cannot listen on \"" + host + "\": not a numeric address");
  fd_ = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd_ < 0 || ::bind(fd_, res->ai_addr, res->ai_addrlen) != 0 || ::listen(fd_, 512) != 0) {
    const std::string why = std::strerror(errno);
    ::freeaddrinfo(res);
    throw std::runtime_error("cannot listen on " + host + ": " + why);
  }
  ::freeaddrinfo(res);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  const int port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                               : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  address_ = host + ":" + std::to_string(port);  // the client splits at the last ':', as for SSDB
  if (unix_path.empty()) return;
  sockaddr_un un{};
  if (unix_path.size() >= sizeof un.sun_path) return;  // too long for a socket: TCP only
  un.sun_family = AF_UNIX;
  std::memcpy(un.sun_path, unix_path.c_str(), unix_path.size() + 1);
  ::unlink(unix_path.c_str());  // a previous service's
  unix_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (unix_fd_ < 0 || ::bind(unix_fd_, reinterpret_cast<sockaddr*>(&un), sizeof un) != 0 ||
      ::listen(unix_fd_, 512) != 0) {
    if (unix_fd_ >= 0) ::close(unix_fd_);
    unix_fd_ = -1;
    return;
  }
  ::chmod(unix_path.c_str(), 0600);
  unix_path_ = unix_path;
}

void RespServer::serve(const std::function<std::unique_ptr<Session>()>& open) {
  pollfd fds[2] = {{fd_, POLLIN, 0}, {unix_fd_, POLLIN, 0}};
  const nfds_t count = unix_fd_ >= 0 ? 2 : 1;
  while (true) {
    if (::poll(fds, count, -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (nfds_t i = 0; i < count; ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      const int c = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) {
        if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
        if (errno == EMFILE || errno == ENFILE) {  // out of descriptors: wait for some to close
          ::usleep(10000);
          continue;
        }
        throw std::runtime_error(std::string("accept: ") + std::strerror(errno));
      }
      if (fds[i].fd == fd_) {
        const int one = 1;
        ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
      if (admit_) {
        const std::string refused = admit_(c);
        if (!refused.empty()) {
          write_all(c, "-" + refused + "\r\n");
          ::close(c);
          continue;
        }
      }
      std::thread(serve_connection, c, open()).detach();
    }
  }
}

}  // namespace ssim::resp
