// A session's auto-run files in corral's state folder: the snapshot taken at
// the start, the comparison once the box is gone, and what was held.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "launcher/autorun/autorun.h"
#include "policy/inbox/inbox.h"

namespace corral::launcher::autorun {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kEndLimit = 200000;  // the box may have made many: all are compared

Kind KindOf(const std::string& name) {
  if (name == "folder") return Kind::kFolder;
  if (name == "symlink") return Kind::kLink;
  if (name == "other") return Kind::kOther;
  return Kind::kFile;
}

// The start's copies are written beside and renamed, but not synced: they are
// taken on every session's start (a git project's hooks alone are a dozen),
// and a sync is 0.3 ms each on this machine's disk, more on slower ones.
// What ends a session (held.json) is synced: ReplaceFile.
Result<void> WriteUnsynced(const std::string& path, const std::string& text) {
  std::string temp = path + ".tmp";
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid() || !WriteAll(fd.get(), text.data(), text.size())) {
    return Error::FromErrno("cannot write " + temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) return Error::FromErrno("cannot write " + path);
  return Ok();
}

Result<nlohmann::json> ReadJson(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text) return text.error();
  auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return Error(path + " is not corral's JSON");
  return json;
}

// A node as JSON; a file's bytes go to folder/sub/N (`sub` "start" or "box").
Result<nlohmann::json> SaveNode(const Node& node, const std::string& folder,
                                const std::string& sub, std::size_t& next) {
  nlohmann::json j = {{"base", node.base},
                      {"path", node.path},
                      {"kind", KindName(node.kind)},
                      {"mode", node.mode}};
  if (node.kind == Kind::kLink) j["link"] = node.link;
  if (node.kind == Kind::kFile) {
    std::string name = sub + "/" + std::to_string(next++);
    if (auto ok = WriteUnsynced(folder + "/" + name, node.content); !ok) return ok.error();
    j["content"] = name;
  }
  return j;
}

Result<Node> LoadNode(const nlohmann::json& j, const std::string& folder) {
  Node node;
  node.base = j.value("base", "");
  node.path = j.value("path", "");
  node.kind = KindOf(j.value("kind", "file"));
  node.mode = j.value("mode", 0u);
  node.link = j.value("link", "");
  node.role = static_cast<Node::Role>(j.value("role", 1));
  if (j.contains("content")) {
    auto content = ReadWholeFile(folder + "/" + j["content"].get<std::string>());
    if (!content) return content.error();
    node.content = std::move(*content);
  }
  return node;
}

Result<void> MakeFolder(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Error("cannot make " + path + ": " + ec.message());
  ::chmod(path.c_str(), 0700);
  return Ok();
}

// An exclusive lock on the session's folder while the end step runs.
Result<UniqueFd> Lock(const std::string& folder) {
  auto fd = OpenLocked(folder + "/lock");
  if (!fd) return Error::FromErrno("cannot lock " + folder, fd.error().code);
  return fd;
}

Result<nlohmann::json> HeldJson(const Report& report, const std::string& folder) {
  nlohmann::json held = nlohmann::json::array();
  std::size_t next = 0;
  for (const Held& h : report.held) {
    nlohmann::json j = {{"base", h.base}, {"path", h.path}, {"shown", h.shown},
                        {"change", ChangeName(h.change)}};
    // Both versions beside each other: host/N (what was put back) and box/N.
    for (const auto& [key, node] : {std::pair{"start", &h.start}, std::pair{"box", &h.box}}) {
      if (!*node) continue;
      auto saved = SaveNode(**node, folder, key == std::string("start") ? "host" : "box", next);
      if (!saved) return saved.error();
      j[key] = *saved;
    }
    held.push_back(std::move(j));
  }
  return nlohmann::json{{"session", report.session}, {"project", report.project},
                        {"held", std::move(held)}, {"errors", report.errors}};
}

}  // namespace

std::string SessionFolder(const std::string& state_dir, const std::string& session_id) {
  return state_dir + "/sessions/" + session_id + ".autorun";
}

namespace {
Result<std::vector<Node>> ReadAtStart(const std::vector<Watch>& watches) {
  auto nodes = ReadWatched(watches);
  if (!nodes) {
    return Error("corral could not read a file that a tool on this machine runs without asking, "
                 "so it cannot be held for review: " + nodes.error().message +
                 ". Nothing ran; make it readable (or move it out of the project) and start "
                 "again");
  }
  return nodes;
}
}  // namespace

Result<std::vector<std::string>> ReadOnlyAtStart(const Roots& roots) {
  auto nodes = ReadAtStart(Watches(roots));
  if (!nodes) return nodes.error();
  return ReadOnlyPaths(*nodes, roots.project);
}

Result<Started> TakeSnapshot(const std::string& state_dir, const std::string& session_id,
                             const Roots& roots, const std::vector<std::string>& keep_folders) {
  std::vector<Watch> watches = Watches(roots);
  auto nodes = ReadAtStart(watches);
  if (!nodes) return nodes.error();
  std::string folder = SessionFolder(state_dir, session_id);
  if (auto ok = MakeFolder(folder + "/start"); !ok) return ok.error();
  if (auto ok = MakeFolder(folder + "/box"); !ok) return ok.error();
  if (auto ok = MakeFolder(folder + "/host"); !ok) return ok.error();
  nlohmann::json saved = nlohmann::json::array();
  std::size_t next = 0;
  for (const Node& node : *nodes) {
    auto j = SaveNode(node, folder, "start", next);
    if (!j) return j.error();
    (*j)["role"] = static_cast<int>(node.role);
    saved.push_back(std::move(*j));
  }
  nlohmann::json w = nlohmann::json::array();
  for (const Watch& watch : watches) {
    w.push_back({{"base", watch.base}, {"pattern", watch.pattern}, {"tool", watch.tool}});
  }
  nlohmann::json snapshot = {{"session", session_id}, {"project", roots.project},
                             {"watches", w},          {"keep", keep_folders},
                             {"nodes", saved}};
  if (auto ok = WriteUnsynced(folder + "/snapshot.json", snapshot.dump(1)); !ok) return ok.error();
  return Started{ReadOnlyPaths(*nodes, roots.project)};
}

Result<Report> EndSession(const std::string& state_dir, const std::string& session_id) {
  std::string folder = SessionFolder(state_dir, session_id);
  Report report;
  report.session = session_id;
  struct stat st {};
  if (::stat((folder + "/snapshot.json").c_str(), &st) != 0) {
    if (auto done = ReadReport(state_dir, session_id); done && *done) return **done;
    return report;
  }
  auto lock = Lock(folder);
  if (!lock) return lock.error();
  if (auto done = ReadReport(state_dir, session_id); done && *done) return **done;
  auto snapshot = ReadJson(folder + "/snapshot.json");
  if (!snapshot) return snapshot.error();
  report.project = snapshot->value("project", "");
  std::vector<Watch> watches;
  for (const auto& w : snapshot->value("watches", nlohmann::json::array())) {
    watches.push_back({w.value("base", ""), w.value("pattern", ""), w.value("tool", "")});
  }
  std::vector<Node> start;
  for (const auto& j : snapshot->value("nodes", nlohmann::json::array())) {
    auto node = LoadNode(j, folder);
    if (!node) return node.error().Context("the snapshot of session " + session_id);
    start.push_back(std::move(*node));
  }
  auto keep = snapshot->value("keep", std::vector<std::string>{});
  auto end = ReadWatched(watches, kEndLimit);
  if (!end) return end.error().Context("comparing the project's auto-run files");
  Differences differences = Compare(start, *end, report.project);
  report.held = differences.held;
  report.compared = true;
  // The box's versions are kept before anything is put back.
  auto held = HeldJson(report, folder);
  if (!held) return held.error();
  report.errors = Restore(differences, keep);
  (*held)["errors"] = report.errors;
  if (report.held.empty() && report.errors.empty()) {
    std::error_code ec;
    fs::remove_all(folder, ec);
    return report;
  }
  if (auto ok = ReplaceFile(folder + "/held.json", held->dump(1)); !ok) return ok.error();
  ::unlink((folder + "/snapshot.json").c_str());
  std::error_code ec;
  fs::remove_all(folder + "/start", ec);  // what was held is in host/ and box/
  return report;
}

Result<std::optional<Report>> ReadReport(const std::string& state_dir,
                                         const std::string& session_id) {
  std::string folder = SessionFolder(state_dir, session_id);
  struct stat st {};
  if (::stat((folder + "/held.json").c_str(), &st) != 0) return std::optional<Report>();
  auto json = ReadJson(folder + "/held.json");
  if (!json) return json.error();
  Report report;
  report.compared = true;
  report.session = json->value("session", session_id);
  report.project = json->value("project", "");
  report.errors = json->value("errors", std::vector<std::string>{});
  for (const auto& j : json->value("held", nlohmann::json::array())) {
    Held held;
    held.base = j.value("base", "");
    held.path = j.value("path", "");
    held.shown = j.value("shown", held.path);
    std::string change = j.value("change", "changed");
    held.change = change == "new"       ? Change::kNew
                  : change == "removed" ? Change::kRemoved
                  : change == "changed" ? Change::kChanged
                                        : Change::kKindChanged;
    if (j.contains("box")) {
      auto box = LoadNode(j["box"], folder);
      if (!box) return box.error();
      held.box = std::move(*box);
    }
    if (j.contains("start")) {
      auto node = LoadNode(j["start"], folder);
      if (!node) return node.error();
      held.start = std::move(*node);
    }
    report.held.push_back(std::move(held));
  }
  return std::optional<Report>(std::move(report));
}

namespace {
// Session ids with a file `name` in their autorun folder, oldest first.
std::vector<std::string> SessionsWith(const std::string& state_dir, const std::string& name) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(state_dir + "/sessions", ec)) {
    std::string file = entry.path().filename().string();
    const std::string suffix = ".autorun";
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    struct stat st {};
    if (::stat((entry.path().string() + "/" + name).c_str(), &st) != 0) continue;
    found.emplace_back(st.st_mtime, file.substr(0, file.size() - suffix.size()));
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> ids;
  for (auto& [time, id] : found) ids.push_back(std::move(id));
  return ids;
}
}  // namespace

std::vector<std::string> PendingSessions(const std::string& state_dir) {
  return SessionsWith(state_dir, "snapshot.json");
}

std::vector<Report> HeldSessions(const std::string& state_dir) {
  std::vector<Report> reports;
  for (const std::string& id : SessionsWith(state_dir, "held.json")) {
    auto report = ReadReport(state_dir, id);
    if (report && *report && (!(*report)->held.empty() || !(*report)->errors.empty())) {
      reports.push_back(std::move(**report));
    }
  }
  return reports;
}

nlohmann::json HeldEvent(const Report& report) {
  nlohmann::json files = nlohmann::json::array();
  for (const Held& held : report.held) {
    files.push_back({{"path", held.shown},
                     {"change", ChangeName(held.change)},
                     {"kind", held.box ? nlohmann::json(KindName(held.box->kind)) : nlohmann::json(nullptr)}});
  }
  return {{"event", "autorun_held"},
          {"session", report.session},
          {"files", std::move(files)},
          {"errors", report.errors},
          {"review", "corral review " + report.session}};
}

std::string HeldLine(const Report& report) {
  if (report.held.empty()) return "";
  std::string line = "held for review: ";
  for (std::size_t i = 0; i < report.held.size(); ++i) {
    if (i > 0) line += ", ";
    line += report.held[i].shown + " (" + std::string(ChangeName(report.held[i].change)) + ")";
  }
  return line + ": corral review " + report.session;
}

void AddToInbox(const std::string& state_dir, const Report& report, const std::string& agent) {
  for (const Held& held : report.held) {
    policy::InboxItem item;
    item.time = UtcTime();
    item.session = report.session;
    item.project = report.project;
    item.agent = agent;
    item.kind = "held";
    item.command = held.shown;
    item.entry = std::string(ChangeName(held.change));
    if (auto added = policy::InboxAdd(state_dir, item); !added) {
      log::warn("cannot add to the inbox: " + added.error().message);
    }
  }
}

Result<Report> EndSessionAndRecord(const std::string& state_dir, const std::string& session_id) {
  std::string folder = SessionFolder(state_dir, session_id);
  struct stat st {};
  bool pending = ::stat((folder + "/snapshot.json").c_str(), &st) == 0;
  auto report = EndSession(state_dir, session_id);
  if (!report || !pending || !report->compared) return report;
  if (report->held.empty() && report->errors.empty()) return report;
  std::string record = state_dir + "/sessions/" + session_id + ".jsonl";
  nlohmann::json event = HeldEvent(*report);
  event["v"] = 1;
  event["time"] = UtcTime();
  std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  UniqueFd fd(::open(record.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (fd.valid()) (void)WriteAll(fd.get(), line.data(), line.size());
  AddToInbox(state_dir, *report, "");
  return report;
}

}  // namespace corral::launcher::autorun
