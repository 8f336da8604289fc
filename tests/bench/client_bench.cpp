// Benchmark, C++ side: put/get throughput of the ssim client against two
// baselines in the same process: an ideal client (writev of RESP framing + payload,
// GET read straight into the destination: the note's rawresp probe) and a naive
// hiredis client (redisCommandArgv SET/GET).
//   client_bench PORT          (a redis-server without password on 127.0.0.1:PORT)
#include <arpa/inet.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "lib/client/client.hpp"

using namespace ssim::client;
using Clock = std::chrono::steady_clock;

namespace {

// Best of three: the server shares this machine's two cores, so single runs are noisy.
double seconds(const std::function<void()>& f) {
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

// The ideal single-connection client: nothing but writev and recv.
struct Ideal {
  int fd;
  std::vector<char> line = std::vector<char>(64);
  explicit Ideal(int port) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) std::exit(1);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  std::string read_line() {
    std::string s;
    char c;
    while (recv(fd, &c, 1, 0) == 1 && c != '\n') s += c;
    return s;
  }
  void set(const char* data, size_t n) {
    std::string head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + std::to_string(n) + "\r\n";
    iovec iov[3] = {{head.data(), head.size()}, {const_cast<char*>(data), n}, {const_cast<char*>("\r\n"), 2}};
    size_t total = head.size() + n + 2, sent = 0;
    while (sent < total) {
      ssize_t w = writev(fd, iov, 3);
      sent += static_cast<size_t>(w);
      size_t skip = static_cast<size_t>(w);
      for (auto& v : iov) {
        size_t s = std::min(skip, v.iov_len);
        v.iov_base = static_cast<char*>(v.iov_base) + s;
        v.iov_len -= s;
        skip -= s;
      }
    }
    read_line();
  }
  void get(char* dst, size_t n) {
    const char* cmd = "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
    if (write(fd, cmd, strlen(cmd)) < 0) std::exit(1);
    read_line();
    recv(fd, dst, n, MSG_WAITALL);
    char crlf[2];
    recv(fd, crlf, 2, MSG_WAITALL);
  }
};

void row(const char* what, size_t bytes, double put_s, double get_s, int reps) {
  std::printf("%-22s %8zu KiB  put %7.2f GB/s  get %7.2f GB/s\n", what, bytes >> 10, reps * double(bytes) / put_s / 1e9,
              reps * double(bytes) / get_s / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 6379;
  const std::string address = "127.0.0.1:" + std::to_string(port);
  Client ssim_client(address, "");
  redisContext* hi = redisConnect("127.0.0.1", port);
  Ideal ideal(port);

  // 1 KiB tensors, pipelined: ops per second.
  {
    const int n = 20000;
    std::vector<char> v(1024, 1);
    std::vector<TensorRef> refs;
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) names.push_back("s" + std::to_string(i % 1000));
    for (int i = 0; i < 1000; ++i) refs.push_back({names[i], v.data(), {1024}, DType::U8});
    std::vector<std::string> get_names(names.begin(), names.begin() + 1000);
    ssim_client.put_tensors(refs);
    const double put = seconds([&] {
      for (int r = 0; r < n / 1000; ++r) ssim_client.put_tensors(refs);
    });
    const double get = seconds([&] {
      for (int r = 0; r < n / 1000; ++r) ssim_client.get_tensors(get_names);
    });
    std::printf("%-22s %8d KiB  put %7.0f ops/s  get %7.0f ops/s  (pipelined, 1000 per batch)\n", "ssim C++", 1,
                n / put, n / get);
    const double hput = seconds([&] {
      for (int r = 0; r < n / 1000; ++r) {
        for (int i = 0; i < 1000; ++i) redisAppendCommand(hi, "SET %s %b", names[i].c_str(), v.data(), v.size());
        for (int i = 0; i < 1000; ++i) {
          void* reply;
          redisGetReply(hi, &reply);
          freeReplyObject(reply);
        }
      }
    });
    const double hget = seconds([&] {
      for (int r = 0; r < n / 1000; ++r) {
        for (int i = 0; i < 1000; ++i) redisAppendCommand(hi, "GET %s", names[i].c_str());
        for (int i = 0; i < 1000; ++i) {
          void* reply;
          redisGetReply(hi, &reply);
          freeReplyObject(reply);
        }
      }
    });
    std::printf("%-22s %8d KiB  put %7.0f ops/s  get %7.0f ops/s  (pipelined, 1000 per batch)\n", "hiredis C", 1,
                n / hput, n / hget);
  }

  for (size_t mib : {1, 16, 64}) {
    const size_t bytes = mib << 20;
    const int reps = mib == 1 ? 200 : mib == 16 ? 20 : 6;
    std::vector<char> data(bytes, 3), back(bytes);
    // Each put is timed before its get (function arguments have no evaluation order).
    double put = seconds([&] {
      for (int r = 0; r < reps; ++r) ideal.set(data.data(), bytes);
    });
    double get = seconds([&] {
      for (int r = 0; r < reps; ++r) ideal.get(back.data(), bytes);
    });
    row("ideal (writev/recv)", bytes, put, get, reps);
    put = seconds([&] {
      for (int r = 0; r < reps; ++r) ssim_client.put_tensor("t", data.data(), {bytes}, DType::U8);
    });
    get = seconds([&] {
      for (int r = 0; r < reps; ++r) ssim_client.unpack_tensor("t", back.data(), {bytes}, DType::U8);
    });
    row("ssim C++ (unpack)", bytes, put, get, reps);
    get = seconds([&] {
      for (int r = 0; r < reps; ++r) ssim_client.get_tensor("t");
    });
    row("ssim C++ (get, new)", bytes, put, get, reps);
    put = seconds([&] {
      for (int r = 0; r < reps; ++r) freeReplyObject(redisCommand(hi, "SET h %b", data.data(), bytes));
    });
    get = seconds([&] {
      for (int r = 0; r < reps; ++r) {
        auto* reply = static_cast<redisReply*>(redisCommand(hi, "GET h"));
        if (reply->len != bytes) std::exit(1);
        std::memcpy(back.data(), reply->str, reply->len);
        freeReplyObject(reply);
      }
    });
    row("hiredis C (naive)", bytes, put, get, reps);
  }
  redisFree(hi);
  return 0;
}
