#include "base/unix_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

namespace corral {
namespace {

constexpr std::string_view kMaking = ".making";

}  // namespace

std::size_t MaxUnixListenPath() { return sizeof(sockaddr_un::sun_path) - 1 - kMaking.size(); }

Result<UniqueFd> ListenUnix(const std::string& path, const UnixListenOptions& options) {
  if (path.empty() || path.size() > MaxUnixListenPath()) {
    return Error("unix socket path '" + path + "' is empty or longer than " +
                 std::to_string(MaxUnixListenPath()) + " bytes");
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISSOCK(st.st_mode)) {
    return Error(path + " exists and is not a socket; remove it or pick another path");
  }
  const std::string making = path + std::string(kMaking);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, making.c_str(), making.size() + 1);
  int flags = SOCK_STREAM | SOCK_CLOEXEC | (options.nonblocking ? SOCK_NONBLOCK : 0);
  UniqueFd fd(::socket(AF_UNIX, flags, 0));
  if (!fd.valid()) return Error::FromErrno("cannot make a unix socket");
  ::unlink(making.c_str());
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return Error::FromErrno("cannot bind a unix socket at " + making);
  }
  if (::chmod(making.c_str(), options.mode) != 0 || ::listen(fd.get(), options.backlog) != 0 ||
      ::rename(making.c_str(), path.c_str()) != 0) {
    Error failed = Error::FromErrno("cannot listen on " + path);
    ::unlink(making.c_str());
    return failed;
  }
  return fd;
}

}  // namespace corral
