// The session's image: there already, built from a folder with a Dockerfile
// (corral run --build DIR), or pulled once. A build shows its progress: one
// line redrawn on a terminal, a line per step otherwise.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <deque>
#include <optional>
#include <string>

#include "base/report.h"
#include "base/unique_fd.h"
#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

constexpr std::size_t kTailLines = 12;  // build output shown when it fails
constexpr int kBarWidth = 20;
constexpr std::size_t kStepWidth = 100;  // a step's text on its own line

struct Step {
  int number = 0;
  int total = 0;
  std::string what;
};

// "Step 2/5 : RUN ..." (Docker) or "STEP 2/5: RUN ..." (Podman), anywhere in
// `text`. (Hand-written: std::regex trips GCC 12's -Wmaybe-uninitialized
// under the sanitizers, and this is all the matching there is.)
std::optional<Step> FindStep(const std::string& text) {
  for (const char* word : {"Step ", "STEP "}) {
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
      std::size_t i = at + 5;
      auto digits = [&](int& out) {
        std::size_t start = i;
        while (i < text.size() && i - start < 6 && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        if (i == start) return false;
        out = std::stoi(text.substr(start, i - start));
        return true;
      };
      Step step;
      if (!digits(step.number) || i >= text.size() || text[i++] != '/' || !digits(step.total)) {
        continue;
      }
      if (i < text.size() && text[i] == ' ') ++i;
      if (i >= text.size() || text[i++] != ':') continue;
      if (i < text.size() && text[i] == ' ') ++i;
      step.what = text.substr(i);
      return step;
    }
  }
  return std::nullopt;
}

// A build step's output line as plain text: its terminal escapes (colours,
// cursor moves) and carriage returns dropped, so an error reads the same in
// a log.
std::string WithoutEscapes(const std::string& text) {
  std::string plain;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') continue;
    if (text[i] != '\033') {
      plain.push_back(text[i]);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '[') {  // CSI: up to its final byte
      for (i += 2; i < text.size() && !(text[i] >= '@' && text[i] <= '~'); ++i) {
      }
    } else {
      ++i;  // a two-byte escape
    }
  }
  return plain;
}

// Reads the engine's build messages: "Step 2/5 : RUN ..." (Docker) or
// "STEP 2/5: RUN ..." (Podman) move the bar; other output is kept for an error.
class BuildProgress {
 public:
  explicit BuildProgress(std::string image) : image_(std::move(image)), tty_(report::Terminal()) {}

  void Message(const nlohmann::json& message) {
    if (!message.contains("stream") || !message["stream"].is_string()) return;
    pending_ += message["stream"].get<std::string>();
    for (std::size_t end; (end = pending_.find('\n')) != std::string::npos;) {
      Line(pending_.substr(0, end));
      pending_.erase(0, end + 1);
    }
    // Docker sends a step's title without its newline first.
    if (FindStep(pending_)) {
      Line(pending_);
      pending_.clear();
    }
  }

  // Clears the bar; on failure, the last lines of the build's output.
  void Finish(bool ok) {
    if (tty_ && drawn_) report::Progress("");
    if (!ok) {
      for (const auto& line : tail_) report::Line("  | " + line);
    }
  }

 private:
  void Line(const std::string& text) {
    std::optional<Step> step = FindStep(text);
    if (!step) {
      if (text.find_first_not_of(" \r\t") == std::string::npos) return;
      // Docker's own bookkeeping (" ---> 1f2e3d", "Removing intermediate
      // container ...") says nothing about why a step failed.
      std::string plain = WithoutEscapes(text);
      std::string_view words(plain);
      words.remove_prefix(std::min(words.size(), words.find_first_not_of(' ')));
      if (words.rfind("---> ", 0) == 0 || words.rfind("Removing intermediate container", 0) == 0) {
        return;
      }
      tail_.push_back(plain);
      if (tail_.size() > kTailLines) tail_.pop_front();
      return;
    }
    int number = step->number, total = std::max(1, step->total);
    std::string what = step->what;
    if (!tty_) {
      // A RUN step's whole script would fill the log: its start names it.
      if (what.size() > kStepWidth) what = what.substr(0, kStepWidth - 3) + "...";
      report::Line("corral: building " + image_ + ": step " + std::to_string(number) + "/" +
                   std::to_string(total) + ": " + what);
      return;
    }
    int filled = kBarWidth * std::min(number, total) / total;
    std::string line = "corral: building " + image_ + " [" + std::string(filled, '#') +
                       std::string(kBarWidth - filled, ' ') + "] " + std::to_string(number) +
                       "/" + std::to_string(total) + " " + what;
    auto width = static_cast<std::size_t>(report::Width());
    if (line.size() > width) line.resize(width);
    report::Progress(line);
    drawn_ = true;
  }

  std::string image_;
  bool tty_;
  bool drawn_ = false;
  std::string pending_;
  std::deque<std::string> tail_;
};

// `tar -C DIR -cf - .` on a pipe: the build context, streamed. With an
// ignore file, tar packs exactly the entries left, read from a memory file.
Result<std::pair<pid_t, UniqueFd>> PackContext(const std::string& dir) {
  auto entries = ContextEntries(dir);
  if (!entries) return entries.error();
  UniqueFd list;
  if (!entries->empty()) {
    list = UniqueFd(::memfd_create("corral-build-context", MFD_CLOEXEC));
    std::string names;
    for (const std::string& entry : *entries) names.append(entry).push_back('\0');
    if (!list.valid() || !WriteAll(list.get(), names.data(), names.size()) || ::lseek(list.get(), 0, SEEK_SET) != 0) {
      return Error::FromErrno("cannot list the build context");
    }
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::FromErrno("pipe");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  std::vector<std::string> argv = {"tar", "-C", dir, "-cf", "-", "."};
  if (list.valid()) argv = {"tar", "-C", dir, "--null", "--no-recursion", "-T", "-", "-cf", "-"};
  auto tar = Spawn(argv, {.in = list.get(), .out = write_end.get()});
  if (!tar) return tar.error().Context("cannot start tar");
  return std::pair{*tar, std::move(read_end)};
}

Result<void> Build(Engine& engine, const std::string& image, const std::string& dir) {
  struct stat st {};
  if (::stat((dir + "/Dockerfile").c_str(), &st) != 0) {
    return Error("--build " + dir + ": there is no Dockerfile in that folder");
  }
  report::Line("corral: building " + image + " from " + dir + " on " + engine.name());
  auto started = std::chrono::steady_clock::now();
  auto packed = PackContext(dir);
  if (!packed) return packed.error();
  auto [tar, context] = std::move(*packed);
  auto built = BuildShowingProgress(engine, context.get(), image);
  context.Reset();  // tar ends (SIGPIPE) if the engine stopped reading
  int status = 0;
  ::waitpid(tar, &status, 0);
  bool packed_all = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!packed_all) {
    return Error("could not pack " + dir + " for the build (tar failed): check that every "
                 "file in it is readable");
  }
  if (!built) return built.error();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  report::Line("corral: built " + image + " in " + report::Seconds(seconds));
  return Ok();
}

}  // namespace

Result<void> BuildShowingProgress(Engine& engine, int context_tar, const std::string& tag,
                                  const BuildOptions& options) {
  BuildProgress progress(tag);
  auto built = engine.Build(
      context_tar, tag, [&](const nlohmann::json& message) { progress.Message(message); }, options);
  progress.Finish(built.ok());
  return built;
}

Result<void> EnsureImage(Engine& engine, const std::string& image,
                         const std::string& build_context) {
  auto exists = engine.ImageExists(image);
  if (!exists) return exists.error();
  if (*exists) return Ok();
  // A folder the user named is the image's source: never a registry's image
  // of the same name instead.
  if (!build_context.empty()) return Build(engine, image, build_context);
  if (auto pulled = engine.Pull(image); !pulled) {
    return pulled.error().Context("the image " + image + " is not on this engine and could not "
                                  "be pulled; build it (corral run --build DIR), pull it, or "
                                  "choose another with --image");
  }
  return Ok();
}

}  // namespace corral::launcher
