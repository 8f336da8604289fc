#include "lib/client/resp_request.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

using ssim::resp::RequestReader;

namespace {
struct Pair {
  int fds[2];
  Pair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0); }
  ~Pair() {
    ::close(fds[0]);
    if (fds[1] >= 0) ::close(fds[1]);
  }
  void send(const std::string& bytes) { REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == ssize_t(bytes.size())); }
  void hang_up() {
    ::close(fds[1]);
    fds[1] = -1;
  }
};
}  // namespace

TEST_CASE("resp requests: a pipeline, each request whole, and the end") {
  Pair p;
  p.send("*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
  RequestReader reader(p.fds[0]);
  std::vector<std::string> argv;
  REQUIRE(reader.next(argv));
  CHECK(argv == std::vector<std::string>{"PING"});
  CHECK(reader.more_buffered());  // the SET is already here: replies may wait for it
  REQUIRE(reader.next(argv));
  CHECK(argv == std::vector<std::string>{"SET", "k", ""});
  CHECK_FALSE(reader.more_buffered());
  p.hang_up();
  CHECK_FALSE(reader.next(argv));
}

TEST_CASE("resp requests: a large argument arrives in pieces and is read whole") {
  Pair p;
  const std::string blob(3 << 20, 'x');  // larger than the reader's buffer and the socket's
  std::thread writer([&] {
    p.send("*2\r\n$3\r\nPUT\r\n$" + std::to_string(blob.size()) + "\r\n");
    for (size_t at = 0; at < blob.size(); at += 100000) p.send(blob.substr(at, 100000));
    p.send("\r\n*1\r\n$4\r\nPING\r\n");
  });
  RequestReader reader(p.fds[0]);
  std::vector<std::string> argv;
  REQUIRE(reader.next(argv));
  REQUIRE(argv.size() == 2);
  CHECK(argv[1] == blob);
  REQUIRE(reader.next(argv));
  CHECK(argv == std::vector<std::string>{"PING"});
  writer.join();
}

TEST_CASE("resp requests: what is not a request ends the connection") {
  for (const std::string& bad : std::vector<std::string>{"PING\r\n", "*0\r\n", "*1\r\n:3\r\n", "*1\r\n$-1\r\n",
                                                         "*1\r\n$3\r\nabcde\r\n", "*x\r\n", std::string(2000, 'a')}) {
    Pair p;
    p.send(bad);
    p.hang_up();
    RequestReader reader(p.fds[0]);
    std::vector<std::string> argv;
    INFO(bad.substr(0, 20));
    CHECK_FALSE(reader.next(argv));
  }
}
