// What mmdebstrap's output says went wrong, in apt's own words: its error and
// warning lines, not mmdebstrap's command lines around them; and whether the
// failure is one that passes by itself (the mirror's network), the only kind
// worth trying again.
#include <array>
#include <string_view>

#include "launcher/agents/agents.h"

namespace corral::launcher {
namespace {

constexpr std::size_t kMaxLine = 240;
constexpr std::size_t kMaxLines = 12;

// apt's words for a download that failed on the way, not for what it asked.
constexpr std::array<std::string_view, 12> kTransient = {
    "Temporary failure resolving", "Could not resolve", "Could not connect to",
    "Unable to connect to",        "Connection timed out", "Connection failed",
    "Connection reset by peer",    "Read error",           "500  Internal Server Error",
    "502  Bad Gateway",            "503  Service Unavailable", "504  Gateway Time"};

bool StartsWith(std::string_view line, std::string_view prefix) {
  return line.substr(0, prefix.size()) == prefix;
}

// apt's own lines: "E: ...", "W: ...", "Err:3 URL ..." and the indented
// reason under an Err line.
bool IsAptLine(std::string_view line, bool after_err) {
  if (StartsWith(line, "E: ") || StartsWith(line, "W: ") || StartsWith(line, "Err:")) return true;
  return after_err && StartsWith(line, "  ");
}

std::string Shortened(std::string_view line) {
  // mmdebstrap repeats apt's command line after its own "E: apt download
  // failed:"; the words before it say what failed.
  if (auto at = line.find(": E: apt-get"); at != std::string_view::npos) line = line.substr(0, at);
  if (line.size() <= kMaxLine) return std::string(line);
  return std::string(line.substr(0, kMaxLine)) + " ...";
}

// When apt said nothing of its own (mmdebstrap failed before or after it):
// the output's last lines.
std::vector<std::string> LastLines(std::string_view output) {
  constexpr std::size_t kLast = 5;
  std::vector<std::string> lines;
  while (!output.empty() && lines.size() < kLast) {
    while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.remove_suffix(1);
    std::size_t at = output.rfind('\n');
    std::string_view line = at == std::string_view::npos ? output : output.substr(at + 1);
    if (!line.empty()) lines.insert(lines.begin(), Shortened(line));
    output = at == std::string_view::npos ? std::string_view() : output.substr(0, at);
  }
  return lines;
}

}  // namespace

AptFailure ReadAptFailure(std::string_view output) {
  AptFailure failure;
  bool after_err = false;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!IsAptLine(line, after_err)) {
      after_err = false;
      continue;
    }
    after_err = StartsWith(line, "Err:") || (after_err && StartsWith(line, "  "));
    for (std::string_view word : kTransient) {
      if (line.find(word) != std::string_view::npos) failure.transient = true;
    }
    std::string shown = Shortened(line);
    bool seen = false;
    for (const std::string& kept : failure.lines) seen = seen || kept == shown;
    if (!seen && failure.lines.size() < kMaxLines) failure.lines.push_back(std::move(shown));
  }
  if (failure.lines.empty()) failure.lines = LastLines(output);
  return failure;
}

}  // namespace corral::launcher
