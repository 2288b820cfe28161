#include <fstream>

#include "policy/matcher/matcher.h"

namespace corral::policy {

Result<std::vector<std::string>> ReadDenyListFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::FromErrno("cannot read deny list " + path);
  std::vector<std::string> entries;
  std::string line;
  while (std::getline(in, line)) {
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    auto last = line.find_last_not_of(" \t\r");
    entries.push_back(line.substr(first, last - first + 1));
  }
  if (in.bad()) return Error::FromErrno("error reading deny list " + path);
  return entries;
}

}  // namespace corral::policy
