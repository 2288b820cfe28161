// The shell front's fallback: the host could not be asked, so only what the
// session's deny list names is refused (docs/deny-list.md, "When the host
// cannot be asked").
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "images/shim/shim.h"
#include "policy/matcher/matcher.h"

namespace corral::shim {
namespace {

constexpr std::size_t kMaxCommandBytes = 8 << 20;  // corral-shell sends no more

bool ReadAll(int fd, std::string& text) {
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxCommandBytes) return false;
  }
}

}  // namespace

std::string RefusalWithoutHost(const std::string& deny_list_file, const std::string& command) {
  auto file = policy::ReadDenyListFile(deny_list_file);
  // No session list to read: the built-in one.
  std::vector<std::string> entries = file ? std::move(*file) : policy::DefaultDenyList();
  auto matcher = policy::Matcher::Create(entries);
  if (!matcher) matcher = policy::Matcher::Create(policy::DefaultDenyList());
  auto match = matcher->Check(command);
  if (match.finding != policy::Finding::kListed) return "";
  return "corral blocked this: `" + match.entry +
         "` may not run while nobody is watching, and the host could not be asked whether "
         "anybody is. Leave it for the user and tell them what it was for.";
}

int CheckLocally(int argc, char** argv) {
  int fd = -1;
  if (argc >= 4 && std::strcmp(argv[2], "--") == 0) {
    std::string_view text = argv[0];
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fd);
    if (ec != std::errc() || end != text.data() + text.size()) fd = -1;
  }
  if (fd < 0) {
    std::fprintf(stderr,
                 "corral-shim check-locally: usage: FD REAL_SHELL -- ARGV0 [ARGS...]\n"
                 "  (corral-shell runs this when the host cannot be asked; you do not need to)\n");
    return 2;
  }
  std::string command;
  errno = 0;
  bool read = ReadAll(fd, command);
  int read_error = errno ? errno : EFBIG;
  ::close(fd);
  if (!read) {
    std::fprintf(stderr,
                 "corral blocked this: the command could not be read to check it (%s). "
                 "Nothing ran.\n",
                 std::strerror(read_error));
    return 1;
  }
  const char* list = std::getenv("CORRAL_DENY_LIST_FILE");
  std::string refusal = RefusalWithoutHost(list && *list ? list : "/run/corral/deny-list", command);
  if (!refusal.empty()) {
    std::fprintf(stderr, "%s\n", refusal.c_str());
    return 1;
  }
  ::execv(argv[1], argv + 3);
  std::fprintf(stderr, "corral-shim: cannot run %s: %s\n", argv[1], std::strerror(errno));
  return 126;
}

}  // namespace corral::shim
