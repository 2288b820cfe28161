// Starting a proxy with its seams replaced (tests): a fake resolver or clock.
#pragma once

#include "netfilter/clock.h"
#include "netfilter/netfilter.h"
#include "netfilter/resolver.h"

namespace corral::netfilter {

struct Seams {
  std::shared_ptr<Resolver> resolver;  // null: the system resolver
  std::shared_ptr<Clock> clock;        // null: the steady clock
};

struct ProxyStarter {
  static Result<std::unique_ptr<Proxy>> Start(const ProxyConfig& config, Seams seams);
};

}  // namespace corral::netfilter
