#include "launcher/session/session.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

namespace corral::launcher {
namespace {

int g_signal_write = -1;

void OnSignal(int sig) {
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(sig);
  if (g_signal_write >= 0) (void)!::write(g_signal_write, &byte, 1);
  errno = saved;
}

// The box's output without a TTY comes in frames (TakeFrames).
class Demux {
 public:
  void Feed(const char* data, std::size_t size) {
    buffer_.append(data, size);
    TakeFrames(buffer_, [](int stream, std::string_view bytes) {
      WriteAll(stream == 2 ? STDERR_FILENO : STDOUT_FILENO, bytes.data(), bytes.size());
    });
  }

 private:
  std::string buffer_;
};

}  // namespace

RawTerminal::RawTerminal() {
  termios mode{};
  if (!::isatty(STDIN_FILENO) || ::tcgetattr(STDIN_FILENO, &mode) != 0) return;
  saved_ = mode;
  ::cfmakeraw(&mode);
  ::tcsetattr(STDIN_FILENO, TCSADRAIN, &mode);
}

RawTerminal::~RawTerminal() {
  if (saved_) ::tcsetattr(STDIN_FILENO, TCSADRAIN, &*saved_);
}

Result<SignalPipe> SignalPipe::Install() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return Error::FromErrno("pipe");
  SignalPipe pipe;
  pipe.read_.Reset(fds[0]);
  pipe.write_.Reset(fds[1]);
  g_signal_write = fds[1];
  struct sigaction action {};
  action.sa_handler = OnSignal;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGWINCH}) ::sigaction(sig, &action, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return pipe;
}

int SignalPipe::Take() {
  unsigned char byte = 0;
  return ::read(read_.get(), &byte, 1) == 1 ? byte : 0;
}

SignalPipe::~SignalPipe() {
  if (read_.valid()) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGWINCH}) ::signal(sig, SIG_DFL);
    g_signal_write = -1;
  }
}

Result<UniqueFd> ListenWatchdog(const std::string& session_dir) {
  // The box runs as the user.
  auto fd = ListenUnix(session_dir + "/" + kWatchdogSocket, {.mode = 0600, .backlog = 4});
  if (!fd) return fd.error().Context("the watchdog socket");
  return fd;
}

std::pair<unsigned, unsigned> TerminalSize() {
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) return {0, 0};
  return {size.ws_row, size.ws_col};
}

int Pump(RawConnection& stream, bool tty, SignalPipe& signals,
         const std::function<void()>& on_resize) {
  Demux demux;
  bool stdin_open = true;
  char buffer[32768];
  for (;;) {
    // Bytes kept from the upgrade answer are read before polling.
    long n = stream.Recv(buffer, sizeof buffer);
    while (n > 0) {
      if (tty) WriteAll(STDOUT_FILENO, buffer, static_cast<std::size_t>(n));
      else demux.Feed(buffer, static_cast<std::size_t>(n));
      n = stream.Recv(buffer, sizeof buffer);
    }
    if (n == 0 || n == -1) return 0;  // the box's output ended
    pollfd fds[3] = {{stream.fd(), POLLIN, 0}, {signals.fd(), POLLIN, 0},
                     {stdin_open ? STDIN_FILENO : -1, POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0 && errno != EINTR) return 0;
    if (fds[1].revents & POLLIN) {
      int sig = signals.Take();
      if (sig == SIGWINCH) on_resize();
      else if (sig != 0) return sig;
    }
    if (stdin_open && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (got > 0) {
        stream.Send(buffer, static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        stdin_open = false;
        if (!tty) stream.CloseWrite();
      }
    }
  }
}

}  // namespace corral::launcher
