// Byte relays for the shim's network modes: the proxy bridge (127.0.0.1:3128
// in the box → the proxy's unix socket in /run/corral) and `connect` (a
// CONNECT tunnel on stdin/stdout for ssh's ProxyCommand). Private to the shim.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <string>
#include <string_view>

namespace corral::shim {

// Copies bytes both ways until both directions end; an end of input on one
// side is passed on as a half-close (shutdown) to the other. `in_a`/`out_a`
// may be one socket or two descriptors (stdin, stdout). Closes nothing.
void Relay(int in_a, int out_a, int in_b, int out_b);

// The address of the abstract unix socket `name` (the box's network
// namespace: no file, gone with the box) and its length.
socklen_t AbstractAddress(std::string_view name, sockaddr_un& address);

// A connected stream socket to the unix socket at `path`, or -1 (errno set).
int ConnectUnix(const std::string& path);

// Listens on 127.0.0.1:`port` (close-on-exec); -1 with errno on failure.
int ListenLoopback(int port);

// Accepts forever on `listener`, relaying each connection to the unix socket
// at `target` on a thread of its own. Runs on a detached thread.
void StartBridge(int listener, const std::string& target);

// `corral-shim connect HOST PORT`: asks the proxy for a tunnel, then relays
// stdin/stdout through it. Returns the exit status.
int Connect(int argc, char** argv);

// `corral-shim forward PORT`: connects to 127.0.0.1:PORT in the box and
// relays stdin/stdout through it (corral run --publish: one per connection
// the host accepts). Returns the exit status.
int Forward(int argc, char** argv);

// The proxy's socket in the box ($CORRAL_PROXY_SOCKET, else /run/corral/proxy.sock).
std::string ProxySocketPath();

}  // namespace corral::shim
