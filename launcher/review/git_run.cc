// Running git for review mode and undo: its stdin and stdout are memory
// files, so a tree of 50,000 entries goes in and out whole.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/review/review.h"

namespace corral::launcher::review {
namespace {

Result<UniqueFd> MemoryFile(const char* name, const std::string& text) {
  UniqueFd fd(::memfd_create(name, MFD_CLOEXEC));
  if (!fd.valid()) return Error::FromErrno("cannot make a memory file for git");
  if (!text.empty() && !WriteAll(fd.get(), text.data(), text.size())) {
    return Error::FromErrno("cannot write git's input");
  }
  ::lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

std::string ReadBack(int fd) {
  std::string text;
  ::lseek(fd, 0, SEEK_SET);
  char buffer[65536];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  return text;
}

}  // namespace

Result<std::string> Git(const std::vector<std::string>& args, const std::string& input,
                        const std::vector<std::string>& env) {
  std::vector<std::string> argv = {"git"};
  argv.insert(argv.end(), args.begin(), args.end());
  // Never a pager, never a prompt for a login (git is started directly, not
  // through env: one program less on every session's start and end).
  std::vector<std::string> variables = {"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat"};
  variables.insert(variables.end(), env.begin(), env.end());
  auto in = MemoryFile("git-in", input);
  if (!in) return in.error();
  auto out = MemoryFile("git-out", "");
  if (!out) return out.error();
  auto err = MemoryFile("git-err", "");
  if (!err) return err.error();
  auto pid = Spawn(argv, {in->get(), out->get(), err->get()}, variables);
  if (!pid) return pid.error().Context("git");
  int status = 0;
  while (::waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string said = ReadBack(err->get());
  if (WaitStatusCode(status) != 0) {
    std::string first = said.substr(0, said.find('\n'));
    std::string what = "git";
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "-C") ++i;  // its folder
      if (i >= args.size() || args[i].rfind("-", 0) == 0 || args[i].find('=') != std::string::npos) {
        continue;
      }
      what += " " + args[i];
      break;
    }
    return Error(what + " failed" + (first.empty() ? "" : ": " + first));
  }
  return ReadBack(out->get());
}

std::vector<std::string> Fields(const std::string& text) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    fields.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return fields;
}

}  // namespace corral::launcher::review
