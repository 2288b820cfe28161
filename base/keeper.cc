#include "base/keeper.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace corral {
namespace {

constexpr char kDone = 'd';

}  // namespace

Result<Keeper> Keeper::Start(std::initializer_list<int> ignored,
                             const std::function<void(int done)>& main,
                             const std::string& fork_what, const std::string& pipe_what) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::FromErrno(pipe_what);
  pid_t pid = ::fork();
  if (pid < 0) {
    Error error = Error::FromErrno(fork_what);
    ::close(fds[0]);
    ::close(fds[1]);
    return error;
  }
  if (pid == 0) {
    ::close(fds[1]);
    ::setsid();
    for (int sig : ignored) ::signal(sig, SIG_IGN);
    main(fds[0]);
    ::_exit(0);
  }
  ::close(fds[0]);
  Keeper keeper;
  keeper.pid_ = pid;
  keeper.done_.Reset(fds[1]);
  return keeper;
}

Keeper::Keeper(Keeper&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), done_(std::move(other.done_)) {}

Keeper& Keeper::operator=(Keeper&& other) noexcept {
  pid_ = std::exchange(other.pid_, -1);
  done_ = std::move(other.done_);
  return *this;
}

void Keeper::Done() {
  if (!done_.valid()) return;
  char byte = kDone;
  (void)!::write(done_.get(), &byte, 1);
  done_.Reset();
}

bool Keeper::Ended() {
  if (pid_ <= 0 || ::waitpid(pid_, nullptr, WNOHANG) != pid_) return false;
  pid_ = -1;
  return true;
}

void Keeper::Wait() {
  if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

bool ParentDone(int done) {
  char byte = 0;
  ssize_t n;
  do {
    n = ::read(done, &byte, 1);
  } while (n < 0 && errno == EINTR);
  return n == 1 && byte == kDone;
}

}  // namespace corral
