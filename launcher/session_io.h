// The session's host side: terminal mode, signals, the watchdog socket, the
// reaper, and the stream pump between this terminal and the box. Private.
#pragma once

#include <termios.h>

#include <functional>
#include <optional>
#include <string>

#include "base/base.h"
#include "launcher/engine.h"

namespace corral::launcher {

// Raw mode on stdin while it lives; the saved mode comes back on every path.
class RawTerminal {
 public:
  RawTerminal();
  ~RawTerminal();
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

 private:
  std::optional<termios> saved_;
};

// SIGINT, SIGTERM, SIGHUP, SIGWINCH become bytes on a pipe the pump polls.
class SignalPipe {
 public:
  static Result<SignalPipe> Install();
  int fd() const { return read_.get(); }
  int Take();  // the next signal number, 0 when none
  ~SignalPipe();
  SignalPipe(SignalPipe&&) = default;

 private:
  SignalPipe() = default;
  UniqueFd read_, write_;
};

// A listening unix socket in the session folder. The shim (PID 1 of the
// box) connects to it; when this process dies, the kernel closes it and the
// shim ends the box.
Result<UniqueFd> ListenWatchdog(const std::string& session_dir);

// A detached process that removes the container (by name) when this one
// dies without saying it is done: the box goes away even after SIGKILL.
class Reaper {
 public:
  static Result<Reaper> Start(const Endpoint& endpoint, const std::string& container_name,
                              const std::string& session_dir);
  void Done();  // the session cleaned up itself
  ~Reaper();
  Reaper(Reaper&&) = default;

 private:
  Reaper() = default;
  UniqueFd pipe_;
};

// Copies stdin to the box and the box's output to stdout/stderr until the
// stream ends. Returns the signal that interrupted it (0 when it ended).
int Pump(RawConnection& stream, bool tty, SignalPipe& signals,
         const std::function<void()>& on_resize);

// The terminal's size, {0,0} when none.
std::pair<unsigned, unsigned> TerminalSize();

}  // namespace corral::launcher
