#pragma once
// Who is on the other end of a loopback TCP connection: the uid that owns the peer's
// socket, as the kernel's socket table says (sock_diag, else /proc/net/tcp). A Unix
// socket has SO_PEERCRED; TCP has nothing like it, yet a port on 127.0.0.1 is reachable
// by every user of the node. This is how a server that cannot ask for a password (the
// SmartRedis door) still answers its own user only.
#include <sys/types.h>

#include <optional>

namespace ssim {

// The uid owning the peer socket of the connected TCP socket `fd`, when the peer is on
// this node (a loopback or local address); nullopt when the kernel does not say.
std::optional<uid_t> tcp_peer_uid(int fd);

}  // namespace ssim
