// hosts(5) files, as network.hosts_file names one: read by the proxy before
// the system resolver, and checked when the config is loaded.
#include <algorithm>
#include <sstream>

#include "policy/network/network.h"

namespace corral::policy {

Result<HostsTable> ParseHosts(std::string_view text) {
  HostsTable table;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string address_text, name;
    if (!(words >> address_text)) continue;
    auto address = ParseIpStrict(address_text);
    if (!address) {
      return Error("line " + std::to_string(number) + ": '" + address_text + "' is not an IP address");
    }
    bool any = false;
    while (words >> name) {
      auto canonical = Canonicalize(name);
      if (!canonical || canonical->ip) {
        return Error("line " + std::to_string(number) + ": '" + name + "' is not a host name");
      }
      auto& list = table[canonical->name];
      if (std::find(list.begin(), list.end(), *address) == list.end()) list.push_back(*address);
      any = true;
    }
    if (!any) return Error("line " + std::to_string(number) + ": an address without a name");
  }
  return table;
}

Result<HostsTable> ReadHostsFile(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text) return Error::FromErrno("cannot read hosts file " + path, text.error().code);
  auto table = ParseHosts(*text);
  if (!table) return table.error().Context(path);
  return table;
}

}  // namespace corral::policy
