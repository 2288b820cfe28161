// corral ps and corral stop: sessions found by their label on the engine
// (the engines the running sessions' records name, without --engine).
#include <chrono>
#include <ctime>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "launcher/autorun/autorun.h"
#include "launcher/engine/engine.h"
#include "launcher/launcher.h"
#include "launcher/network_mode/network_mode.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

Result<Engine> ConnectFor(const policy::Policy& policy, const std::string& flag) {
  auto choice = ChooseEndpoints(flag, policy.engine, [](const char* n) { return std::getenv(n); });
  if (!choice) return choice.error();
  return Engine::Connect(*choice);
}

std::string Label(const nlohmann::json& c, const std::string& key) {
  const auto& labels = c.value("Labels", nlohmann::json::object());
  return labels.is_object() && labels.contains(key) ? labels[key].get<std::string>() : "";
}

std::string Name(const nlohmann::json& c) {
  const auto& names = c.value("Names", nlohmann::json::array());
  std::string name = names.empty() ? "" : names[0].get<std::string>();
  return !name.empty() && name[0] == '/' ? name.substr(1) : name;
}

bool IsSessionId(const std::string& id) {
  return id.size() == 12 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The network mode's project volumes still on the engine: each holds a
// box's work that is not back on this machine yet.
Result<nlohmann::json> ProjectVolumes(Engine& engine) {
  return engine.ListVolumes(std::string(network_mode::kLabelPart) + "=" +
                            network_mode::kProjectPart);
}

std::string SessionOfVolume(const nlohmann::json& volume) {
  const auto& labels = volume.value("Labels", nlohmann::json::object());
  if (!labels.is_object() || !labels.contains(kLabelSession)) return "";
  return labels[kLabelSession].is_string() ? labels[kLabelSession].get<std::string>() : "";
}

std::string KeptLine(const nlohmann::json& volume) {
  std::string id = SessionOfVolume(volume);
  const auto& labels = volume.value("Labels", nlohmann::json::object());
  std::string project = labels.is_object() ? labels.value(network_mode::kLabelProject, "") : "";
  return id + ": the box's work on " + project + " is kept in the volume " +
         volume.value("Name", "") + "; `corral stop " + id + "` copies it back\n";
}

// The session's project copied back when its volume is still there (a
// session killed before or during its copy-back); "" when there is none.
Result<std::string> CopyBackLeftover(Engine& engine, const std::string& id) {
  auto volumes = ProjectVolumes(engine);
  if (!volumes) return volumes.error();
  bool kept = false;
  for (const auto& volume : *volumes) kept = kept || SessionOfVolume(volume) == id;
  auto report = network_mode::ResumeCopyBack(engine, id);
  if (!report) return report.error().Context("copy session " + id + "'s project back");
  if (*report) return network_mode::DescribeCopyBack(**report, id);
  if (!kept) return std::string();
  // No manifest (removed by hand, or another user's state folder): what is
  // in the volume cannot be compared, so it is left alone and named.
  return "corral: the volume " + network_mode::LayoutFor(id).project_volume +
         " holds session " + id + "'s project, but this machine has no record of what was "
         "copied in (" + network_mode::ManifestPath(policy::StateDir(), id) +
         "); it is kept: copy its files out with a container that mounts it\n";
}

// Removes every container of the session (the box, a network mode's
// sidecar; one made while corral was being killed outlives its reaper), but
// the copier when asked: a copy-back reads through it.
Result<void> RemoveContainersOf(Engine& engine, const std::string& session,
                                const nlohmann::json& list, bool but_copier) {
  for (const auto& c : list) {
    if (Label(c, kLabelSession) != session ||
        (but_copier && Label(c, network_mode::kLabelPart) == "copier")) {
      continue;
    }
    if (auto ok = engine.Remove(c.value("Id", "")); !ok) return ok.error();
  }
  return Ok();
}

// What the network mode made for the session, once its project is home. A
// create the engine was still doing when corral died can make a container
// after the first look, and its volumes stay in use while it exists: so,
// when the teardown fails, the session's containers go again and it is
// tried again, for a few seconds.
Result<void> TearDownLeftovers(Engine& engine, const std::string& session) {
  const auto layout = network_mode::LayoutFor(session);
  auto torn_down = network_mode::TearDown(engine, layout);
  for (int attempt = 0; !torn_down && attempt < 10; ++attempt) {
    log::info("stop: " + torn_down.error().message + " (tried again)");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto list = engine.ListByLabel(kLabelSession, /*all=*/true);
    if (!list) return list.error();
    if (auto ok = RemoveContainersOf(engine, session, *list, /*but_copier=*/false); !ok) {
      return ok.error();
    }
    torn_down = network_mode::TearDown(engine, layout);
  }
  return torn_down;
}

// The running sessions by the endpoint each was started on.
std::map<std::string, std::vector<std::string>> SessionsByEndpoint(
    const std::vector<RecordedSession>& sessions) {
  std::map<std::string, std::vector<std::string>> by_endpoint;
  for (const auto& session : sessions) by_endpoint[session.endpoint].push_back(session.id);
  return by_endpoint;
}

// "corral: session 3f2a... runs on unix:///x, which did not answer (nothing
// listens there)": Connect's error without its advice, which is for a
// session about to start.
std::string NoAnswerLine(const std::string& url, const std::vector<std::string>& sessions,
                         const Error& error) {
  std::string why = error.message;
  const std::string tried = "no container engine answered: tried " + url + " (";
  if (why.rfind(tried, 0) == 0) {
    why = why.substr(tried.size());
    if (auto close = why.rfind(")."); close != std::string::npos) why.resize(close);
  }
  std::string ids;
  for (const auto& id : sessions) ids += (ids.empty() ? "" : ", ") + id;
  return "corral: " + std::string(sessions.size() == 1 ? "session " : "sessions ") + ids +
         (sessions.size() == 1 ? " runs" : " run") + " on " + url + ", which did not answer (" +
         why + "); `corral ps --engine " + url + "` asks it again\n";
}

}  // namespace

Result<std::string> ListSessions(const policy::Policy& policy, const std::string& flag) {
  auto choice = ChooseEndpoints(flag, policy.engine, [](const char* n) { return std::getenv(n); });
  if (!choice) return choice.error();
  // Without --engine, the engines the running sessions were started on too.
  std::vector<RecordedSession> recorded;
  if (flag.empty()) recorded = RunningRecordedSessions(policy::StateDir());
  std::vector<Engine> engines;
  std::string unanswered;
  auto home = Engine::Connect(*choice);
  if (home) {
    engines.push_back(std::move(*home));
  } else if (recorded.empty()) {
    return home.error();
  } else if (choice->named) {
    unanswered += "corral: " + home.error().message + "\n";
  }
  for (const auto& [url, sessions] : SessionsByEndpoint(recorded)) {
    bool asked = false;
    for (const Engine& engine : engines) asked = asked || engine.endpoint().url == url;
    if (asked) continue;
    auto engine = ConnectRecorded(url);
    if (engine) {
      engines.push_back(std::move(*engine));
    } else {
      unanswered += NoAnswerLine(url, sessions, engine.error());
    }
  }
  nlohmann::json list = nlohmann::json::array(), volumes = nlohmann::json::array();
  std::set<std::string> seen;  // one engine may be reached by two names
  for (Engine& engine : engines) {
    auto boxes = engine.ListByLabel(kLabelSession, /*all=*/false);
    if (!boxes) return boxes.error();
    for (auto& c : *boxes) {
      if (seen.insert(c.value("Id", "")).second) list.push_back(std::move(c));
    }
    auto kept = ProjectVolumes(engine);
    if (!kept) return kept.error();
    for (auto& volume : *kept) {
      if (seen.insert("volume " + volume.value("Name", "")).second) {
        volumes.push_back(std::move(volume));
      }
    }
  }
  std::ostringstream out;
  out << "SESSION       AGENT        STATUS                PROJECT\n";
  for (const auto& c : list) {
    char line[512];
    std::snprintf(line, sizeof line, "%-13s %-12s %-21s %s\n", Label(c, kLabelSession).c_str(),
                  Label(c, "corral.agent").c_str(), c.value("Status", "").c_str(),
                  Label(c, "corral.project").c_str());
    out << line;
    if (std::string ports = Label(c, "corral.publish"); !ports.empty()) {
      out << "              published: " << ports << "\n";
    }
  }
  // A session that ended (or was killed) with auto-run files held, or with
  // its files not compared yet (a box or a copy-back still there).
  auto running = [&](const std::string& id) {
    for (const auto& c : list) {
      if (Label(c, kLabelSession) == id) return true;
    }
    return false;
  };
  for (const auto& volume : volumes) {
    if (!running(SessionOfVolume(volume))) out << KeptLine(volume);
  }
  for (const auto& report : autorun::HeldSessions(policy::StateDir())) {
    out << report.session << ": " << autorun::HeldLine(report) << "\n";
  }
  for (const auto& id : review::PendingCopies(policy::StateDir())) {
    auto recorded = RecordedSessionFor(policy::StateDir(), id);
    if (!running(id) && !(recorded && StillRunning(*recorded))) {
      out << id << ": review mode's copy is not brought back yet: `corral stop " << id
          << "` makes its branch\n";
    }
  }
  for (const auto& id : autorun::PendingSessions(policy::StateDir())) {
    if (!running(id)) {
      out << id << ": its auto-run files are not compared yet: `corral stop " << id
          << "` holds what the box changed\n";
    }
  }
  return out.str() + unanswered;
}

Result<std::string> StopSession(const policy::Policy& policy, const std::string& flag,
                                const std::string& id) {
  // Without --engine, the engine a session that has not ended was started on.
  std::optional<RecordedSession> recorded;
  if (flag.empty()) recorded = RecordedSessionFor(policy::StateDir(), id);
  const bool on_record = recorded && !recorded->ended && !recorded->endpoint.empty();
  auto engine = on_record ? ConnectRecorded(recorded->endpoint) : ConnectFor(policy, flag);
  if (!engine && on_record) {
    return engine.error().Context("session " + recorded->id + " was started on " +
                                  recorded->endpoint + " (its record says)");
  }
  if (!engine) return engine.error();
  auto list = engine->ListByLabel(kLabelSession, /*all=*/true);
  if (!list) return list.error();
  std::string session;
  for (const auto& c : *list) {
    std::string container = c.value("Id", "");
    if (Label(c, kLabelSession) == id || Name(c) == id ||
        (id.size() >= 6 && container.rfind(id, 0) == 0)) {
      session = Label(c, kLabelSession);
      break;
    }
  }
  const bool found = !session.empty();
  if (!found && IsSessionId(id)) session = id;
  if (session.empty()) {
    return Error("no corral session " + id + " on " + engine->name() +
                 " (corral ps lists the running ones)");
  }
  // The box is gone (or was already): its project comes home if a volume
  // holds it, and what the network mode made for it goes.
  if (auto ok = RemoveContainersOf(*engine, session, *list, /*but_copier=*/true); !ok) {
    return ok.error();
  }
  // As in TearDownLeftovers: a box whose create the engine was still doing
  // when corral died appears after the first look and holds the project
  // volume; it goes, and the copy-back is tried again.
  auto copied = CopyBackLeftover(*engine, session);
  for (int attempt = 0; !copied && attempt < 10; ++attempt) {
    log::info("stop: " + copied.error().message + " (tried again)");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto again = engine->ListByLabel(kLabelSession, /*all=*/true);
    if (!again) return again.error();
    if (auto ok = RemoveContainersOf(*engine, session, *again, /*but_copier=*/true); !ok) {
      return ok.error();
    }
    copied = CopyBackLeftover(*engine, session);
  }
  if (!copied) return copied.error();
  auto torn_down = TearDownLeftovers(*engine, session);
  // The box is gone and its copy home: what it changed among the auto-run
  // files is held (or was, by the reaper).
  if (torn_down) {
    auto held = HoldAutorunFiles(session);
    if (!held) {
      *copied += "corral: " + held.error().message + "\n";
    } else {
      auto report = autorun::ReadReport(policy::StateDir(), session);
      if (report && *report) {
        for (const auto& error : (*report)->errors) *copied += "corral: " + error + "\n";
        if (auto line = autorun::HeldLine(**report); !line.empty()) *copied += "corral: " + line + "\n";
      }
    }
  }
  // A review session's copy, when corral was killed before its branch.
  if (torn_down) *copied += FinishReview(*engine, session);
  if (copied->empty() && !found) {
    if (!torn_down) return torn_down.error();
    return Error("no corral session " + id + " on " + engine->name() +
                 " (corral ps lists the running ones)");
  }
  if (!torn_down) *copied += "corral: " + torn_down.error().message + "\n";
  return *copied;
}

}  // namespace corral::launcher
