// Name resolution seam. The proxy asks the hosts file first (in the loop,
// a map lookup), then a Resolver off the loop; every answer is checked by the
// caller before anything is dialed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "netfilter/rules/rules.h"

namespace corral::netfilter {

using ResolveCallback = std::function<void(Result<std::vector<IpAddress>>)>;

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Calls `done` exactly once, from any thread (possibly before returning).
  virtual void Resolve(const std::string& host, ResolveCallback done) = 0;
};

// getaddrinfo on a small pool of threads. getaddrinfo honours nsswitch
// (systemd-resolved, /etc/hosts, a company's NSS module) like every other
// program on the host; the caller's deadline bounds the wait, and a lookup
// still running when the proxy stops finishes on its own detached thread.
std::shared_ptr<Resolver> MakeSystemResolver(int threads, std::size_t max_queue);

// hosts(5) files are read by policy/'s rules, which check the config's too.
using policy::HostsTable;
using policy::ParseHosts;
using policy::ReadHostsFile;

}  // namespace corral::netfilter
