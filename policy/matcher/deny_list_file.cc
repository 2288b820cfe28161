#include <fstream>

#include "policy/matcher/matcher.h"

namespace corral::policy {

Result<std::vector<std::string>> ReadDenyListFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::FromErrno("cannot read deny list " + path);
  std::vector<std::string> entries;
  std::string line;
  while (std::getline(in, line)) {
    std::string_view entry = Trim(line, " \t\r");
    if (entry.empty() || entry.front() == '#') continue;
    entries.emplace_back(entry);
  }
  if (in.bad()) return Error::FromErrno("error reading deny list " + path);
  return entries;
}

}  // namespace corral::policy
