#include "lib/util/peer_uid.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

// A real loopback connection: the accepted socket's peer is this process, so its owner
// is our uid. (That another user's connection is refused is tested end to end, with a
// second user, in tests/integration/test_smartredis.py.)
TEST_CASE("peer uid: a loopback TCP peer's owner, from the kernel's socket table") {
  const int server = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(server, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::listen(server, 1) == 0);
  socklen_t size = sizeof address;
  ::getsockname(server, reinterpret_cast<sockaddr*>(&address), &size);
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  const int accepted = ::accept(server, nullptr, nullptr);
  REQUIRE(accepted >= 0);
  const auto uid = ssim::tcp_peer_uid(accepted);
  REQUIRE(uid);
  CHECK(*uid == ::getuid());
  ::close(accepted);
  ::close(client);
  ::close(server);
}
