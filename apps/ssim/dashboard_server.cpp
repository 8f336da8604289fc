#include "apps/ssim/dashboard_server.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <thread>

#include "lib/util/errors.hpp"

namespace ssim::app {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

void session(tcp::socket socket, const Dashboard& d) {
  // Reads give up after 30 s of silence: an idle keep-alive connection ends its thread.
  timeval idle{30, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle);
  beast::flat_buffer buffer;
  beast::error_code ec;
  for (;;) {
    http::request_parser<http::empty_body> parser;
    parser.header_limit(16 * 1024);
    http::read(socket, buffer, parser, ec);
    if (ec) break;
    const auto& req = parser.get();
    const HttpReply reply = handle_request(d, std::string(req.method_string()), std::string(req.target()),
                                           std::string(req[http::field::authorization]));
    http::response<http::string_body> res{static_cast<http::status>(reply.status), req.version()};
    res.set(http::field::server, "ssim");
    res.set(http::field::content_type, reply.content_type);
    res.set(http::field::cache_control, "no-store");
    res.set("X-Content-Type-Options", "nosniff");
    res.set("Referrer-Policy", "no-referrer");  // the token is in the URL
    res.set("X-Frame-Options", "SAMEORIGIN");
    res.set("Content-Security-Policy",
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:");
    res.keep_alive(req.keep_alive());
    res.body() = reply.body;
    res.prepare_payload();
    http::write(socket, res, ec);
    if (ec || !res.keep_alive()) break;
  }
  socket.shutdown(tcp::socket::shutdown_both, ec);
}

}  // namespace

void serve_dashboard(const Dashboard& d, const std::string& bind, int port,
                     const std::function<void(int port)>& listening) {
  boost::asio::io_context io;
  tcp::acceptor acceptor(io);
  try {
    const tcp::endpoint at(boost::asio::ip::make_address(bind), static_cast<unsigned short>(port));
    acceptor.open(at.protocol());
    acceptor.set_option(boost::asio::socket_base::reuse_address(true));
    acceptor.bind(at);
    acceptor.listen();
  } catch (const std::exception& e) {
    throw EnvironmentError("cannot listen on " + bind + ":" + std::to_string(port) + ": " + e.what());
  }
  listening(acceptor.local_endpoint().port());
  for (;;) {
    tcp::socket socket(io);
    beast::error_code ec;
    acceptor.accept(socket, ec);
    if (ec) continue;
    std::thread(session, std::move(socket), std::cref(d)).detach();
  }
}

}  // namespace ssim::app
