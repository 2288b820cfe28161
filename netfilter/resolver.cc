#include "netfilter/resolver.h"

#include <netdb.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "netfilter/rules/rules.h"

namespace corral::netfilter {
namespace {

Result<std::vector<IpAddress>> LookUp(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &list);
  if (rc != 0) return Error("cannot resolve " + host + ": " + gai_strerror(rc));
  std::vector<IpAddress> out;
  for (addrinfo* ai = list; ai; ai = ai->ai_next) {
    auto ip = FromSockAddr(ai->ai_addr);
    if (ip && std::find(out.begin(), out.end(), *ip) == out.end()) out.push_back(*ip);
  }
  freeaddrinfo(list);
  if (out.empty()) return Error("cannot resolve " + host + ": no addresses");
  return out;
}

// State shared with detached workers, so Stop never waits on a slow DNS.
struct Pool {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::pair<std::string, ResolveCallback>> queue;
  bool stopping = false;
};

class SystemResolver final : public Resolver {
 public:
  SystemResolver(int threads, std::size_t max_queue)
      : pool_(std::make_shared<Pool>()), max_queue_(max_queue) {
    for (int i = 0; i < threads; ++i) std::thread(Work, pool_).detach();
  }
  ~SystemResolver() override {
    std::lock_guard lock(pool_->mutex);
    pool_->stopping = true;
    pool_->queue.clear();
    pool_->wake.notify_all();
  }

  void Resolve(const std::string& host, ResolveCallback done) override {
    {
      std::lock_guard lock(pool_->mutex);
      if (pool_->queue.size() < max_queue_) {
        pool_->queue.emplace_back(host, std::move(done));
        pool_->wake.notify_one();
        return;
      }
    }
    done(Error("too many name lookups in progress; try again"));
  }

 private:
  static void Work(std::shared_ptr<Pool> pool) {
    while (true) {
      std::pair<std::string, ResolveCallback> job;
      {
        std::unique_lock lock(pool->mutex);
        pool->wake.wait(lock, [&] { return pool->stopping || !pool->queue.empty(); });
        if (pool->stopping) return;
        job = std::move(pool->queue.front());
        pool->queue.pop_front();
      }
      job.second(LookUp(job.first));
    }
  }

  std::shared_ptr<Pool> pool_;
  std::size_t max_queue_;
};

}  // namespace

std::shared_ptr<Resolver> MakeSystemResolver(int threads, std::size_t max_queue) {
  return std::make_shared<SystemResolver>(threads, max_queue);
}

}  // namespace corral::netfilter
