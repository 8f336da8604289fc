#pragma once
// Facts about this node's network, for the database step: which address to bind, and
// whether a port is free.
#include <string>

#include "lib/util/node_address.hpp"

namespace ssim::orchestrator {

// resolve_bind_address: lib/util/node_address.hpp, shared with the trainers' rank 0.
using ssim::resolve_bind_address;

// "" when `port` can be bound on `address`, else a one-line reason that names the
// process holding it when it can be found.
std::string port_problem(const std::string& address, int port);

// A base port with `span` consecutive ports free on `address` (and each port + 10000,
// the cluster bus, when `bus`), picked at random in 20000-55000: orchestrator.port: auto.
int free_port_base(const std::string& address, int span, bool bus);

// "redis-server (pid 123)" for the process listening on TCP `port`, or "".
std::string port_holder(int port);

}  // namespace ssim::orchestrator
