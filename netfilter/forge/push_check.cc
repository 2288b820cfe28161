// A push's body judged as it streams to the origin: the ref updates at its
// start, then the pack's commits, decided once the body has ended. Until
// then the last bytes are held back, so a refused push never reaches the
// origin whole (its pack lacks its checksum) and no ref moves.
#include <algorithm>
#include <optional>

#include "netfilter/forge/forge.h"
#include "netfilter/forge/pack_reader.h"
#include "netfilter/forge/receive_pack.h"

namespace corral::netfilter::forge {
namespace {

// More than a pack's checksum (20 or 32 bytes) and a delete command's end.
constexpr std::size_t kHeldTail = 64;

}  // namespace

struct PushCheck::State {
  PushRules rules;
  ReceivePackCommands commands;
  std::optional<PackReader> pack;
  std::string held;   // bytes not yet forwarded (at most kHeldTail after each Feed)
  std::string error;  // the first thing that could not be read
};

PushCheck::PushCheck(std::set<std::string> protected_refs) : state_(std::make_unique<State>()) {
  state_->rules.protected_refs = std::move(protected_refs);
}

PushCheck::~PushCheck() = default;

void PushCheck::Feed(std::string_view bytes, std::string& forward) {
  State& s = *state_;
  if (s.error.empty()) {
    std::string_view rest = bytes;
    if (s.commands.progress() == ReceivePackCommands::Progress::kNeedMore) {
      auto progress = s.commands.Feed(bytes);
      if (progress == ReceivePackCommands::Progress::kError) {
        s.error = s.commands.error().message;
      } else if (progress == ReceivePackCommands::Progress::kDone) {
        rest = bytes.substr(bytes.size() - s.commands.leftover());
        bool sha256 = s.commands.capabilities().count("object-format=sha256") > 0;
        s.pack.emplace(sha256 ? ObjectFormat::kSha256 : ObjectFormat::kSha1);
      } else {
        rest = {};
      }
    }
    if (s.error.empty() && s.pack && !rest.empty()) {
      if (auto fed = s.pack->Feed(rest); !fed) s.error = fed.error().message;
    }
  }
  s.held.append(bytes);
  if (s.held.size() > kHeldTail) {
    std::size_t go = s.held.size() - kHeldTail;
    forward.append(s.held, 0, go);
    s.held.erase(0, go);
  }
}

PushCheck::Outcome PushCheck::Finish(const AskForge& ask_forge) {
  State& s = *state_;
  Outcome out;
  for (const RefUpdate& update : s.commands.updates()) out.refs.push_back(update.ref);
  if (s.error.empty() && s.commands.progress() != ReceivePackCommands::Progress::kDone) {
    s.error = "the push ended before its list of ref updates did";
  }
  if (s.error.empty() && s.commands.ExpectsPack()) {
    if (!s.pack) {
      s.error = "the push has no pack";
    } else if (auto done = s.pack->Finish(); !done) {
      s.error = done.error().message;
    }
  }
  if (!s.error.empty()) {
    out.refused = true;
    out.reason = "corral could not read this push, so it was not let through while nobody watches: " + s.error;
    std::map<std::string, std::string> refused;
    for (const RefUpdate& update : s.commands.updates()) refused[update.ref] = out.reason;
    if (!refused.empty()) out.report = RefusalReport(s.commands.updates(), refused, s.commands.capabilities());
    return out;
  }
  CommitGraph commits = s.pack ? s.pack->commits() : CommitGraph();
  auto refused = JudgeUpdates(s.commands.updates(), s.rules, [&](const RefUpdate& update) {
    if (Descends(commits, update.new_oid, update.old_oid) == Ancestry::kDescends) return true;
    if (!ask_forge) return false;
    // The pushed commits do not show it: the forge has the commits between.
    auto between = ask_forge(LeftThePack(commits, update.new_oid), update.old_oid);
    if (!between) return false;
    commits.insert(between->begin(), between->end());
    return Descends(commits, update.new_oid, update.old_oid) == Ancestry::kDescends;
  });
  if (refused.empty()) {
    out.tail = std::move(s.held);
    return out;
  }
  out.refused = true;
  for (const auto& [ref, why] : refused) out.reason += (out.reason.empty() ? "" : "; ") + ref + ": " + why;
  out.report = RefusalReport(s.commands.updates(), refused, s.commands.capabilities());
  return out;
}

std::string DefaultBranchOf(std::string_view advertisement_body) {
  auto advertised = ParseAdvertisement(advertisement_body);
  return advertised ? advertised->head_target : "";
}

std::string AdvertisementTarget(std::string_view receive_pack_target) {
  std::string_view path = receive_pack_target.substr(0, receive_pack_target.find('?'));
  constexpr std::string_view kService = "/git-receive-pack";
  if (path.size() >= kService.size() && path.substr(path.size() - kService.size()) == kService) {
    path.remove_suffix(kService.size());
  }
  return std::string(path) + "/info/refs?service=git-upload-pack";
}

}  // namespace corral::netfilter::forge
