// Where a session runs, from its record: `corral ps` and `corral stop` ask
// the engine a session was started on, without --engine (issue 33).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "launcher/engine/engine.h"
#include "launcher/hold/hold.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

// session_started is among a record's first lines (after a hold's two) and
// session_ended its last: a long record is read at its two ends only.
constexpr off_t kHeadBytes = 64 * 1024;
constexpr off_t kTailBytes = 16 * 1024;

std::string ReadRange(int fd, off_t from, off_t size) {
  std::string text(static_cast<std::size_t>(size), '\0');
  ssize_t got = ::pread(fd, text.data(), text.size(), from);
  text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return text;
}

std::string Text(const nlohmann::json& event, const char* key) {
  return event.contains(key) && event[key].is_string() ? event[key].get<std::string>() : "";
}

}  // namespace

std::optional<RecordedSession> RecordedSessionFrom(std::string_view head, std::string_view tail) {
  std::optional<RecordedSession> found;
  std::istringstream lines{std::string(head)};
  for (std::string line; !found && std::getline(lines, line);) {
    auto event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || Text(event, "event") != "session_started") continue;
    RecordedSession session;
    session.id = Text(event, "session");
    session.engine = Text(event, "engine");
    session.endpoint = Text(event, "endpoint");
    session.project = Text(event, "project");
    session.agent = Text(event, "agent");
    if (event.contains("pid") && event["pid"].is_number_integer()) session.pid = event["pid"];
    session.pid_start = Text(event, "pid_start");
    found = std::move(session);
  }
  if (!found) return std::nullopt;
  // Inside a JSON string the quotes would be escaped: a command cannot fake it.
  found->ended = tail.find("\"event\":\"session_ended\"") != std::string_view::npos;
  return found;
}

std::optional<RecordedSession> ReadRecordedSession(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) return std::nullopt;
  std::string head = ReadRange(fd.get(), 0, std::min<off_t>(st.st_size, kHeadBytes));
  off_t tail_from = std::max<off_t>(0, st.st_size - kTailBytes);
  std::string tail =
      st.st_size <= kHeadBytes ? head : ReadRange(fd.get(), tail_from, st.st_size - tail_from);
  return RecordedSessionFrom(head, tail);
}

bool StillRunning(const RecordedSession& session) {
  return !session.ended && session.pid > 0 && !session.pid_start.empty() &&
         ProcessStart(session.pid) == session.pid_start;
}

std::vector<RecordedSession> RunningRecordedSessions(const std::string& state_dir) {
  std::vector<RecordedSession> running;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(state_dir + "/sessions", ec)) {
    if (entry.path().extension() != ".jsonl") continue;
    auto session = ReadRecordedSession(entry.path().string());
    if (session && !session->endpoint.empty() && StillRunning(*session)) {
      running.push_back(std::move(*session));
    }
  }
  std::sort(running.begin(), running.end(),
            [](const RecordedSession& a, const RecordedSession& b) { return a.id < b.id; });
  return running;
}

std::optional<RecordedSession> RecordedSessionFor(const std::string& state_dir,
                                                  const std::string& given) {
  // A box's name ends in its session's id: corral-<project>-<id>.
  std::string id = given;
  if (id.rfind("corral-", 0) == 0 && id.size() > 20 && id[id.size() - 13] == '-') {
    id = id.substr(id.size() - 12);
  }
  if (id.size() < 6 || id.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return std::nullopt;
  }
  std::optional<RecordedSession> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(state_dir + "/sessions", ec)) {
    const auto& path = entry.path();
    if (path.extension() != ".jsonl" || path.stem().string().rfind(id, 0) != 0) continue;
    if (found) return std::nullopt;  // several start so: the engine asked decides
    found = ReadRecordedSession(path.string());
    if (!found) return std::nullopt;
  }
  return found;
}

Result<Engine> ConnectRecorded(const std::string& url) {
  auto getenv = [](const char* n) { return std::getenv(n); };
  const char* home = std::getenv("HOME");
  auto endpoint =
      ParseEndpoint(url, "the session's record", TlsFromEnvironment(getenv, home ? home : ""));
  if (!endpoint) return endpoint.error();
  EngineChoice choice;
  choice.candidates.push_back(*endpoint);
  choice.named = true;
  choice.starting_wait_seconds = 0;
  return Engine::Connect(choice);
}

}  // namespace corral::launcher
