#pragma once
// This node's address as other nodes reach it, for the database and for a trainer's
// rank 0 (MASTER_ADDR): one rule for both (docs/experiment-file.md `interface`).
#include <string>

namespace ssim {

// The IPv4 address of `interface`; with no interface, loopback when `local`, else the
// address this node's hostname resolves to, unless that is a loopback address (Debian
// maps the hostname to 127.0.1.1): then the first interface that is not loopback, where
// there is one. Throws std::runtime_error naming the interfaces that exist when
// `interface` is not one of them.
std::string resolve_bind_address(const std::string& interface, bool local);

// A TCP port that is free on `address` now, picked at random in 20000-32767 (below
// Linux's ephemeral ports, which any outgoing connection may take); 0 when none is.
int free_port_on(const std::string& address);

}  // namespace ssim
