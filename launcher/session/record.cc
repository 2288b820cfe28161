// The session record (docs/events.md): every event of a session as one JSON
// line, appended by the oracle's and the proxy's threads alike.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <future>

#include "launcher/hold/hold.h"
#include "launcher/session/session.h"
#include "launcher/plan/plan.h"
#include "launcher/launcher.h"

namespace corral::launcher {
std::vector<nlohmann::json> HoldEvents(const std::string& folder, std::int64_t since_ms,
                                       std::int64_t released_ms) {
  if (since_ms == 0) return {};
  std::vector<nlohmann::json> events;
  std::string since = UtcTime(since_ms);
  events.push_back({{"event", "held"}, {"time", since}, {"folder", folder}, {"since", since}});
  if (released_ms != 0) {
    events.push_back({{"event", "released"},
                      {"time", UtcTime(released_ms)},
                      {"folder", folder},
                      {"since", since}});
  }
  return events;
}

std::string SessionRecordPath(const std::string& state_dir, const std::string& session_id) {
  return state_dir + "/sessions/" + session_id + ".jsonl";
}

Result<std::shared_ptr<SessionRecord>> SessionRecord::Open(const std::string& path,
                                                          std::string session_id, int copy_fd) {
  std::error_code ec;
  std::string folder = std::filesystem::path(path).parent_path().string();
  std::filesystem::create_directories(folder, ec);
  if (ec) return Error("cannot create the session record's folder " + folder + ": " + ec.message());
  ::chmod(folder.c_str(), 0700);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (!fd.valid()) return Error::FromErrno("cannot open the session record " + path);
  auto record = std::shared_ptr<SessionRecord>(new SessionRecord());
  record->path_ = path;
  record->session_ = std::move(session_id);
  record->file_ = std::move(fd);
  record->copy_fd_ = copy_fd;
  return record;
}

void SessionRecord::Append(std::string_view line) {
  std::string text(line);
  text += '\n';
  std::lock_guard lock(mu_);
  // One write per line: O_APPEND keeps each line whole.
  if (!WriteAll(file_.get(), text.data(), text.size()) && !warned_) {
    warned_ = true;
    log::warn("cannot write the session record " + path_ + ": " + std::strerror(errno));
  }
  if (copy_fd_ >= 0 && !WriteAll(copy_fd_, text.data(), text.size())) copy_fd_ = -1;  // a closed reader: stop
}

void SessionRecord::Write(nlohmann::json event) {
  if (!event.contains("v")) event["v"] = 1;
  if (!event.contains("time")) event["time"] = UtcTime();
  if (!event.contains("session")) event["session"] = session_;
  Append(event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void SessionRecord::Command(std::string_view line) {
  {
    std::lock_guard lock(mu_);
    ++counts_.commands;
    // The oracle's line has "decision":"deny" for a refusal; inside a JSON
    // string those quotes would be escaped, so a command cannot fake it.
    if (line.find("\"decision\":\"deny\"") != std::string_view::npos) ++counts_.refused;
  }
  Append(line);
}

void SessionRecord::Network(std::string_view line) {
  auto event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!event.is_object()) return Append(line);
  {
    std::lock_guard lock(mu_);
    ++counts_.connections;
    if (event.value("decision", "") == "deny") {
      ++counts_.connections_refused;
      // 403 is the proxy's "this host (or address) may not be reached".
      std::string host = event.value("host", "");
      if (event.contains("rule") && !host.empty()) {
        // The host is allowed; one of its requests was refused by a forge rule.
        std::string key = host + ": " + event.value("rule", "") +
                          (event.contains("repository") ? " " + event.value("repository", "") : "");
        auto& refused = counts_.forge_refused[key];
        if (refused.times++ == 0) refused.reason = event.value("reason", "");
      } else if (event.contains("credential") && !host.empty()) {
        auto& stray = counts_.stray_stand_ins[host];
        if (stray.times++ == 0) stray.reason = event.value("reason", "");
      } else if (event.value("status", 0) == 403 && !host.empty()) {
        ++counts_.refused_hosts[host];
      }
    }
  }
  event["session"] = session_;
  Write(std::move(event));
}

RecordCounts SessionRecord::Counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

namespace {
std::vector<std::string> LoginNames(const SessionPlan& plan) {
  std::vector<std::string> names;
  for (const BoxLogin& login : plan.logins) names.push_back(login.variable);
  return names;
}

// The forge's scope as the record names it: each host, its API, its repositories.
nlohmann::json ForgeJson(const ForgePlan& forge) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const ForgePlan::Host& host : forge.hosts) {
    hosts.push_back({{"git_host", host.git_host}, {"api_host", host.api_host}, {"repositories", host.repositories}});
  }
  return {{"hosts", std::move(hosts)},
          {"protected_branches", forge.protected_branches},
          {"other_reads", forge.other_reads},
          {"history", forge.history ? "enforce" : "allow"},
          {"ssh", forge.ssh ? "allow" : "deny"}};
}
}  // namespace

nlohmann::json StartedEvent(const SessionPlan& plan, const BoxDecision& box,
                            const std::vector<std::string>& agent_command,
                            const std::string& engine, const std::string& endpoint) {
  auto or_null = [](const std::string& text) {
    return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
  };
  return {{"boxed", box.boxed},
          {"why", box.why},
          {"command", agent_command},
          {"image", box.boxed ? or_null(plan.image) : nlohmann::json(nullptr)},
          {"engine", or_null(engine)},
          {"endpoint", or_null(endpoint)},
          // Whether it still runs, for `corral ps` (a reused pid has another start time).
          {"pid", ::getpid()},
          {"pid_start", ProcessStart(::getpid())},
          // Where the box's services run: on this machine, beside corral.
          {"mode", box.boxed ? nlohmann::json("local") : nlohmann::json("unboxed")},
          {"allowed_hosts", box.boxed ? nlohmann::json(plan.allowed_domains) : nlohmann::json(nullptr)},
          // Which runtime ran the box: "default" (this machine's kernel) or "gvisor".
          {"runtime", box.boxed ? nlohmann::json(plan.runtime.empty() ? "default" : "gvisor")
                                : nlohmann::json(nullptr)},
          // Names only: which logins the proxy holds, which the box has as they are.
          {"logins", box.boxed ? nlohmann::json(LoginNames(plan)) : nlohmann::json(nullptr)},
          {"logins_passed", box.boxed ? nlohmann::json(plan.logins_passed) : nlohmann::json(nullptr)},
          // The forge's scope (docs/forge.md): hosts and the project's repositories there.
          {"forge", box.boxed ? ForgeJson(plan.forge) : nlohmann::json(nullptr)}};
}

Result<Recorder> Recorder::Start(const SessionPlan& plan, const RunOptions& options,
                                 nlohmann::json started, std::vector<nlohmann::json> before) {
  auto record = SessionRecord::Open(SessionRecordPath(policy::StateDir(), plan.session_id),
                                    plan.session_id, options.events_fd);
  if (!record) return record.error();
  Recorder recorder;
  recorder.record_ = std::move(*record);
  recorder.project_ = plan.project_dir;
  recorder.agent_ = plan.labels.count("corral.agent") ? plan.labels.at("corral.agent") : "";
  recorder.started_ = std::chrono::steady_clock::now();
  recorder.review_ = options.review;
  // git status can take a while in a large project: off the start path.
  // The content snapshot (corral undo, review --apply) goes with it.
  recorder.before_ = std::async(std::launch::async, [project = plan.project_dir,
                                                     session = plan.session_id] {
                       if (auto tree = review::SnapshotTree(policy::StateDir(), session, project,
                                                            "before");
                           !tree) {
                         log::info("no snapshot for corral undo: " + tree.error().message);
                       }
                       return SnapshotProject(project);
                     }).share();
  started["event"] = "session_started";
  started["project"] = plan.project_dir;
  started["agent"] = recorder.agent_;
  for (auto& event : before) recorder.record_->Write(std::move(event));
  recorder.record_->Write(std::move(started));
  return recorder;
}

void Recorder::ProjectSettled() {
  if (review_ || !before_.valid() || after_.valid()) return;
  after_ = std::async(std::launch::async, [session = record_->session(), project = project_,
                                           before = before_] {
    before.wait();  // the start's snapshot is written first: they share a file
    return review::SnapshotTree(policy::StateDir(), session, project, "after");
  });
}

void Recorder::End(Result<RunOutcome>& outcome, std::uint64_t refused_while_away,
                   const std::function<bool()>& watching) {
  RecordCounts counts = record_->Counts();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started_);
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& [host, times] : counts.refused_hosts) {
    hosts.push_back({{"host", host}, {"count", times}});
  }
  nlohmann::json files = nullptr;
  std::optional<ProjectSnapshot> before = before_.valid() ? before_.get() : std::nullopt;
  nlohmann::json snapshot = nullptr;
  // The content snapshot and git status side by side: both only read the
  // project, and each is a git process or more on the way out.
  ProjectSettled();
  if (before && !review_) {
    if (auto after = SnapshotProject(project_)) files = ChangedFiles(project_, *before, *after);
  }
  if (after_.valid()) {
    if (auto after = after_.get()) {
      snapshot = {{"after", *after}};
    } else {
      log::info("no end snapshot for corral undo: " + after.error().message);
    }
  }
  nlohmann::json ended = {
      {"event", "session_ended"},
      {"exit_status", outcome ? outcome->exit_code : kExitBoxFailed},
      {"duration_ms", ms.count()},
      {"counts",
       {{"commands", counts.commands},
        {"refused", counts.refused},
        {"refused_while_away", refused_while_away},
        {"connections", counts.connections},
        {"connections_refused", counts.connections_refused}}},
      {"refused_hosts", std::move(hosts)},
      {"files_changed", std::move(files)},
      {"snapshot", std::move(snapshot)}};
  if (!outcome) ended["error"] = outcome.error().message;
  record_->Write(std::move(ended));
  auto to_inbox = [&](const char* kind, const std::string& host, const std::string& entry,
                      std::uint64_t times) {
    policy::InboxItem item;
    item.time = UtcTime();
    item.session = record_->session();
    item.project = project_;
    item.agent = agent_;
    item.kind = kind;
    item.command = host;
    item.entry = entry;
    item.times = times;
    if (auto added = policy::InboxAdd(policy::StateDir(), item); !added) {
      log::warn("cannot add to the inbox: " + added.error().message);
    }
  };
  // Nobody can approve a host during the session: each is left in the inbox
  // once, for whoever comes back. Somebody watching now reads the end line.
  bool away = !counts.refused_hosts.empty() && !(watching && watching());
  for (const auto& [host, times] : counts.refused_hosts) {
    if (!away) break;
    to_inbox("host", host, "", times);
  }
  // A stand-in sent where its login does not go is worth a look whether or
  // not somebody was watching: something in the box tried to send a login away.
  for (const auto& [host, stray] : counts.stray_stand_ins) {
    to_inbox("credential", host, stray.reason, stray.times);
  }
  // The forge's rules held while nobody watched: a push refused, a write to
  // another repository. Left in the inbox for whoever comes back.
  if (!(watching && watching())) {
    for (const auto& [what, refused] : counts.forge_refused) to_inbox("forge", what, refused.reason, refused.times);
  }
  // The next session here names them at its start (and --print does); a
  // session without a proxy (unboxed) says nothing about hosts.
  if (counts.connections > 0) {
    if (auto kept = RememberRefusedHosts(policy::StateDir(), project_, record_->session(),
                                         counts.refused_hosts);
        !kept) {
      log::warn(kept.error().message);
    }
  }
  if (outcome) {
    outcome->refused = counts.refused;
    outcome->refused_hosts = counts.refused_hosts;
    outcome->record_path = record_->path();
  }
}

}  // namespace corral::launcher
