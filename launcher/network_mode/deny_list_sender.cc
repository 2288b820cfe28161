// The deny list's copy in the session volume kept as this machine's
// oracle rewrites it (a config edit), for the shim's fallback in the box.
#include <time.h>

#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {

DenyListSender::DenyListSender(Engine& engine, const Layout& layout)
    : engine_(engine), sidecar_(layout.sidecar), thread_([this] { Loop(); }) {}

DenyListSender::~DenyListSender() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void DenyListSender::Send(std::string text) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_ = std::move(text);
  }
  wake_.notify_all();
}

void DenyListSender::Loop() {
  for (;;) {
    std::string text;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || pending_.has_value(); });
      if (stopping_) return;
      text = std::move(*pending_);
      pending_.reset();
    }
    // The engine writes the file in place (no rename), so a shim reading at
    // that instant may see it missing (then it uses the built-in list) or
    // short; the oracle, not this copy, decides while the channel holds.
    auto tar = DenyListTar(text, ::time(nullptr));
    Result<void> put = tar ? engine_.PutArchive(sidecar_, kSessionMountPoint, *tar)
                           : Result<void>(Error("the deny list does not fit a tar header"));
    if (!put) {
      log::warn("the box's copy of the deny list (its fallback when this machine cannot be "
                "asked) keeps the previous list: " +
                put.error().message);
    }
  }
}

}  // namespace corral::launcher::network_mode
