// The shim as a shell: decide, then become the real shell unchanged.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "images/shim/shell.h"

namespace corral::shim {
namespace {

constexpr std::size_t kMaxScriptBytes = 1 << 20;   // what is sent for a script file
constexpr std::size_t kMaxStdinBytes = 8 << 20;    // what a piped-in script may hold

std::string BaseName(const std::string& path) {
  std::string name = path.substr(path.rfind('/') + 1);
  if (!name.empty() && name.front() == '-') name.erase(0, 1);
  return name;
}

bool SameFile(const std::string& a, const struct stat& b) {
  struct stat st {};
  return ::stat(a.c_str(), &st) == 0 && st.st_dev == b.st_dev && st.st_ino == b.st_ino;
}

std::string ReadPrefix(const std::string& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// Reads all of stdin; false when it is larger than the limit.
bool ReadStdin(std::string& text) {
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxStdinBytes) return false;
  }
}

// Puts `text` back on stdin for the real shell.
bool ReplaceStdin(const std::string& text) {
  int fd = ::memfd_create("corral-stdin", MFD_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            ::lseek(fd, 0, SEEK_SET) == 0 && ::dup2(fd, STDIN_FILENO) == STDIN_FILENO;
  ::close(fd);
  return ok;
}

std::string CurrentDirectory() {
  char buffer[4096];
  return ::getcwd(buffer, sizeof buffer) ? buffer : "";
}

}  // namespace

std::string FindRealShell(const std::string& name) {
  struct stat self {};
  bool know_self = ::stat("/proc/self/exe", &self) == 0;
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::vector<std::string> candidates;
  if (const char* named = std::getenv(("CORRAL_REAL_" + upper).c_str()); named && *named) {
    candidates.push_back(named);
  }
  for (const char* dir : {"/bin/", "/usr/bin/", "/usr/local/bin/"}) {
    candidates.push_back(dir + name);
  }
  for (const std::string& path : candidates) {
    if (::access(path.c_str(), X_OK) != 0) continue;
    if (know_self && SameFile(path, self)) continue;  // never ourselves
    return path;
  }
  return "";
}

int RunShell(int argc, char** argv) {
  std::string name = BaseName(argv[0]);
  std::vector<std::string> args(argv + 1, argv + argc);
  ShellCall call = ParseShellArgs(args);

  std::string real = FindRealShell(name);
  if (real.empty() && name != "sh") real = FindRealShell("sh");  // e.g. bash in a busybox image
  if (real.empty()) {
    std::fprintf(stderr,
                 "corral-shim: this image has no %s (looked in /bin, /usr/bin, /usr/local/bin; "
                 "set CORRAL_REAL_%s to its path)\n",
                 name.c_str(), name.c_str());
    return 127;
  }

  std::string command;
  bool check = true;
  switch (call.kind) {
    case ShellCall::Kind::kInfo: check = false; break;
    case ShellCall::Kind::kCommand: command = call.text; break;
    case ShellCall::Kind::kScript: command = ReadPrefix(call.text, kMaxScriptBytes); break;
    case ShellCall::Kind::kStdin:
      // A person at a terminal types their own commands; text piped in is
      // checked like -c.
      if (::isatty(STDIN_FILENO)) {
        check = false;
        break;
      }
      if (!ReadStdin(command)) {
        std::fprintf(stderr, "corral blocked this: the script piped into %s is larger than %zu "
                             "bytes, too large to check. Leave it for the user.\n",
                     name.c_str(), kMaxStdinBytes);
        return 1;
      }
      if (!ReplaceStdin(command)) {
        std::perror("corral-shim: cannot hand the script to the shell");
        return 1;
      }
      break;
  }

  if (check) {
    ShellVerdict verdict = AskHost(SettingsFromEnvironment(), name, command, CurrentDirectory());
    if (!verdict.allowed) {
      std::fprintf(stderr, "%s\n", verdict.message.c_str());
      return 1;
    }
  }
  ::execv(real.c_str(), argv);
  std::fprintf(stderr, "corral-shim: cannot run %s: %s\n", real.c_str(), std::strerror(errno));
  return 126;
}

}  // namespace corral::shim
