// Where library code's lines go for the corral command (base/report.h): news
// and progress on stderr, a command's answer on stdout. A progress line is
// drawn in place on a terminal and cleared before the next line of news.
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <string>

#include "base/report.h"
#include "launcher/cli/cli.h"

namespace corral::cli {
namespace {

class TerminalSink final : public report::Sink {
 public:
  TerminalSink() : terminal_(::isatty(STDERR_FILENO) == 1) {}

  void Line(std::string_view line) override {
    std::lock_guard lock(mutex_);
    ClearProgress();
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
    std::fflush(stderr);
  }

  void Progress(std::string_view line) override {
    if (!terminal_) return;
    std::lock_guard lock(mutex_);
    std::fprintf(stderr, "\r\033[K%.*s", static_cast<int>(line.size()), line.data());
    std::fflush(stderr);
    drawn_ = !line.empty();
  }

  void Output(std::string_view text) override {
    std::lock_guard lock(mutex_);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }

  bool terminal() const override { return terminal_; }

  int width() const override {
    winsize size{};
    return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col - 1
                                                                             : 79;
  }

 private:
  void ClearProgress() {
    if (!drawn_) return;
    std::fputs("\r\033[K", stderr);
    drawn_ = false;
  }

  const bool terminal_;
  std::mutex mutex_;
  bool drawn_ = false;
};

}  // namespace

void InstallTerminalSink() {
  static TerminalSink sink;
  report::SetSink(&sink);
}

}  // namespace corral::cli
