#include "apps/ssim/dashboard_server.hpp"

#include <chrono>
#include <list>
#include <map>
#include <memory>
#include <optional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "lib/orchestrator/address.hpp"
#include "lib/util/errors.hpp"

namespace ssim::app {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

class Server;

// One client connection: read a request (within the deadline), answer, repeat.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Server& server, std::string peer)
      : stream_(std::move(socket)), server_(server), peer_(std::move(peer)) {}
  void start() { read(); }
  void close();
  bool trusted() const { return trusted_; }
  const std::string& peer() const { return peer_; }
  std::list<std::shared_ptr<Connection>>::iterator place;  // in the server's list, oldest first

 private:
  void read();
  void on_read(beast::error_code ec);
  void answer();

  beast::tcp_stream stream_;
  Server& server_;
  std::string peer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<http::response<http::string_body>> response_;
  bool trusted_ = false;  // sent a request with the token
  bool closed_ = false;
};

class Server {
 public:
  Server(boost::asio::io_context& io, const Dashboard& d, const DashboardLimits& limits)
      : io_(io), acceptor_(io), retry_(io), d_(d), limits_(limits) {}

  void listen(const std::string& bind, int port) {
    const tcp::endpoint at(boost::asio::ip::make_address(bind), static_cast<unsigned short>(port));
    acceptor_.open(at.protocol());
    acceptor_.set_option(boost::asio::socket_base::reuse_address(true));
    acceptor_.bind(at);
    acceptor_.listen();
  }
  int port() const { return acceptor_.local_endpoint().port(); }

  void accept() {
    acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec) {
        // Out of descriptors (or a passing error): try again shortly, without spinning.
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](beast::error_code) { accept(); });
        return;
      }
      admit(std::move(socket));
      accept();
    });
  }

  const Dashboard& dashboard() const { return d_; }
  const DashboardLimits& limits() const { return limits_; }
  void forget(Connection& c) {
    if (!c.peer().empty()) --per_peer_[c.peer()];
    connections_.erase(c.place);
  }

 private:
  void admit(tcp::socket socket) {
    beast::error_code ec;
    const auto remote = socket.remote_endpoint(ec);
    if (ec) return;
    // Loopback peers are all "this host": they are told apart by the token, not the address.
    std::string peer = remote.address().is_loopback() ? "" : remote.address().to_string();
    if (!peer.empty() && per_peer_[peer] >= limits_.max_per_remote_host) return;  // closed as it goes
    if (static_cast<int>(connections_.size()) >= limits_.max_connections && !evict_one()) return;
    auto c = std::make_shared<Connection>(std::move(socket), *this, peer);
    connections_.push_back(c);
    c->place = std::prev(connections_.end());
    if (!peer.empty()) ++per_peer_[peer];
    c->start();
  }

  // Room for a new connection: the oldest one that has not shown the token goes.
  bool evict_one() {
    for (auto& c : connections_)
      if (!c->trusted()) {
        c->close();
        return true;
      }
    return false;  // all are the owner's: the new one waits for the owner's own to end
  }

  boost::asio::io_context& io_;
  tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;
  const Dashboard& d_;
  DashboardLimits limits_;
  std::list<std::shared_ptr<Connection>> connections_;
  std::map<std::string, int> per_peer_;
};

void Connection::read() {
  parser_.emplace();
  parser_->header_limit(16 * 1024);
  parser_->body_limit(16 * 1024);  // every route is a GET: a body is never needed
  // The whole request within the deadline: a byte every few seconds does not keep it.
  // The owner's connections (they showed the token) may also idle that long between requests.
  stream_.expires_after(
      std::chrono::seconds(trusted_ ? server_.limits().idle_seconds : server_.limits().request_seconds));
  auto self = shared_from_this();
  http::async_read(stream_, buffer_, *parser_, [self](beast::error_code ec, std::size_t) { self->on_read(ec); });
}

void Connection::on_read(beast::error_code ec) {
  if (ec || closed_) {
    close();
    return;
  }
  answer();
}

void Connection::answer() {
  const auto& req = parser_->get();
  const std::string target(req.target());
  const std::string authorization(req[http::field::authorization]);
  trusted_ = trusted_ || shows_token(server_.dashboard(), parse_target(target), authorization);
  const HttpReply reply = handle_request(server_.dashboard(), std::string(req.method_string()), target, authorization);
  response_ =
      std::make_shared<http::response<http::string_body>>(static_cast<http::status>(reply.status), req.version());
  auto& res = *response_;
  res.set(http::field::server, "ssim");
  res.set(http::field::content_type, reply.content_type);
  res.set(http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");  // the token is in the URL
  res.set("X-Frame-Options", "SAMEORIGIN");
  res.set("Content-Security-Policy",
          "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:");
  res.keep_alive(req.keep_alive() && trusted_);  // no idle time for a client without the token
  res.body() = reply.body;
  res.prepare_payload();
  stream_.expires_after(std::chrono::seconds(server_.limits().request_seconds));
  auto self = shared_from_this();
  http::async_write(stream_, res, [self](beast::error_code ec, std::size_t) {
    if (ec || !self->response_->keep_alive()) {
      self->close();
      return;
    }
    self->response_.reset();
    self->read();
  });
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
  stream_.close();
  server_.forget(*this);  // may drop the last owner of this object: nothing after this
}

}  // namespace

void serve_dashboard(const Dashboard& d, const std::string& bind, int port,
                     const std::function<void(int port)>& listening, const DashboardLimits& limits) {
  boost::asio::io_context io;
  Server server(io, d, limits);
  try {
    server.listen(bind, port);
  } catch (const boost::system::system_error& e) {
    // Said as a person would, not as Boost's "bind: ... [system:98 at .../reactive_socket...]".
    std::string why = e.code().message();
    if (e.code() == boost::asio::error::address_in_use) {
      const std::string who = orchestrator::port_holder(port);
      why = "the port is in use" + (who.empty() ? "" : " by " + who) +
            "; choose another with --port, or leave it out for any free one";
    }
    throw EnvironmentError("cannot listen on " + bind + ":" + std::to_string(port) + ": " + why);
  } catch (const std::exception& e) {
    throw EnvironmentError("cannot listen on " + bind + ":" + std::to_string(port) + ": " + e.what());
  }
  listening(server.port());
  server.accept();
  io.run();
}

}  // namespace ssim::app
