// corral review's work: a held path's diff, and the user's decision on it.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "launcher/autorun/autorun.h"

namespace corral::launcher::autorun {
namespace {

// One side of a diff as text: a file's bytes, a link's target, or a line
// saying what is there.
std::string AsText(const std::optional<Node>& node) {
  if (!node) return "";
  switch (node->kind) {
    case Kind::kFile: return node->content;
    case Kind::kLink: return "(a symbolic link to " + node->link + ")\n";
    case Kind::kFolder: return "(a folder)\n";
    case Kind::kOther: return "(not a file: a fifo, a device, or unreadable)\n";
  }
  return "";
}

std::string ModeLine(const std::optional<Node>& node) {
  if (!node || node->kind != Kind::kFile) return "";
  char mode[16];
  std::snprintf(mode, sizeof mode, "%04o", node->mode);
  return std::string(mode) + ((node->mode & 0111) ? " (executable)" : "");
}

Result<void> WriteReport(const std::string& state_dir, const Report& report) {
  std::string folder = SessionFolder(state_dir, report.session);
  if (report.held.empty() && report.errors.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
    if (ec) return Error("cannot remove " + folder + ": " + ec.message());
    return Ok();
  }
  nlohmann::json held =
      nlohmann::json::parse(ReadWholeFile(folder + "/held.json").value_or(""), nullptr, false);
  if (!held.is_object()) return Error("cannot read " + folder + "/held.json");
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& j : held.value("held", nlohmann::json::array())) {
    std::string path = j.value("path", ""), base = j.value("base", "");
    if (std::any_of(report.held.begin(), report.held.end(),
                    [&](const Held& h) { return h.path == path && h.base == base; })) {
      kept.push_back(j);
    }
  }
  held["held"] = kept;
  held["errors"] = report.errors;
  return ReplaceFile(folder + "/held.json", held.dump(1));
}

// Puts the box's version of `held` in place, unless the host's file is no
// longer what the hold left there (and not `force`).
Result<void> Apply(const Held& held, const std::string& session, bool force) {
  auto now = ReadNode(held.base, held.path);
  if (!now) return now.error();
  bool as_left = (!*now && !held.start) || (*now && held.start && Same(**now, *held.start)) ||
                 (*now && held.start && held.start->kind == Kind::kFolder &&
                  (*now)->kind == Kind::kFolder);
  if (!as_left && !force) {
    return Error(held.shown + " changed on this machine since session " + session +
                 " held the box's version; look at it, then apply with --force to replace it "
                 "(corral review " + session + " --apply " + held.shown + " --force)");
  }
  if (!held.box) return RemoveNode(held.base, held.path);
  return PutNode(*held.box);
}

}  // namespace

std::string Diff(const std::string& state_dir, const Report& report, const Held& held) {
  std::string head = "--- " + held.shown + " (" + std::string(ChangeName(held.change)) +
                     ", session " + report.session + ")\n";
  std::string before_mode = ModeLine(held.start), after_mode = ModeLine(held.box);
  if (before_mode != after_mode) {
    head += "    mode: " + (before_mode.empty() ? "-" : before_mode) + " -> " +
            (after_mode.empty() ? "-" : after_mode) + "\n";
  }
  std::string folder = SessionFolder(state_dir, report.session);
  std::string a = folder + "/diff-host", b = folder + "/diff-box";
  std::ofstream(a, std::ios::binary) << AsText(held.start);
  std::ofstream(b, std::ios::binary) << AsText(held.box);
  auto out = RunCapture({"diff", "-u", "--label", "this machine: " + held.shown, "--label",
                         "the box: " + held.shown, a, b},
                        std::chrono::seconds(10));
  ::unlink(a.c_str());
  ::unlink(b.c_str());
  if (out && (out->exit_status == 0 || out->exit_status == 1)) return head + out->out + "\n";
  // No diff program: the box's version as it is.
  return head + "+++ the box's version:\n" + AsText(held.box) + "\n";
}

Result<std::vector<std::string>> Decide(const std::string& state_dir, const std::string& session,
                                        const std::vector<std::string>& paths, Decision decision,
                                        bool force) {
  auto read = ReadReport(state_dir, session);
  if (!read) return read.error();
  if (!*read) return Error("session " + session + " holds no files for review (corral review lists those that do)");
  Report report = std::move(**read);
  for (const std::string& path : paths) {
    if (std::none_of(report.held.begin(), report.held.end(),
                     [&](const Held& h) { return h.shown == path || h.path == path; })) {
      std::string names;
      for (const Held& h : report.held) names += (names.empty() ? "" : ", ") + h.shown;
      return Error("session " + session + " holds no file " + path + "; it holds: " + names);
    }
  }
  std::vector<std::string> done, refused;
  std::vector<Held> kept;
  for (Held& held : report.held) {
    bool named = paths.empty() || std::find(paths.begin(), paths.end(), held.shown) != paths.end() ||
                 std::find(paths.begin(), paths.end(), held.path) != paths.end();
    if (!named) {
      kept.push_back(std::move(held));
      continue;
    }
    if (decision == Decision::kDiscard) {
      done.push_back("discarded the box's version of " + held.shown + " (this machine's stays)");
      continue;
    }
    if (auto ok = Apply(held, session, force); !ok) {
      refused.push_back(ok.error().message);
      kept.push_back(std::move(held));
      continue;
    }
    done.push_back("applied the box's version of " + held.shown);
  }
  report.held = std::move(kept);
  if (paths.empty() && decision == Decision::kDiscard) report.errors.clear();
  if (report.held.empty()) report.errors.clear();
  if (auto ok = WriteReport(state_dir, report); !ok) return ok.error();
  if (!refused.empty()) {
    std::string message;
    for (const auto& line : done) message += line + "\n";
    for (std::size_t i = 0; i < refused.size(); ++i) message += (i ? "\n" : "") + refused[i];
    return Error(message);
  }
  return done;
}

}  // namespace corral::launcher::autorun
