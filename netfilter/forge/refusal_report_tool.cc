// Test helper for refusal_report_check.py: reads a real receive-pack request
// body on stdin and prints the RefusalReport that answers it, so a real git
// client can be shown corral's answer.
//
//   refusal_report_tool [REF=REASON]...
//
// Refs named are refused with their reason; the others of the push are "not
// pushed". Exit 2 when the body's command list cannot be read.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>
#include <string>

#include "netfilter/forge/receive_pack.h"

int main(int argc, char** argv) {
  using corral::netfilter::forge::ReceivePackCommands;
  std::map<std::string, std::string> refused;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::size_t equals = arg.find('=');
    if (equals == std::string::npos) {
      std::cerr << "usage: refusal_report_tool [REF=REASON]... < request-body\n";
      return 2;
    }
    refused[arg.substr(0, equals)] = arg.substr(equals + 1);
  }
  std::string body(std::istreambuf_iterator<char>(std::cin), {});
  ReceivePackCommands commands;
  if (commands.Feed(body) != ReceivePackCommands::Progress::kDone) {
    std::cerr << "refusal_report_tool: "
              << (commands.progress() == ReceivePackCommands::Progress::kError
                      ? commands.error().message
                      : std::string("the command list is cut short"))
              << "\n";
    return 2;
  }
  std::string report =
      corral::netfilter::forge::RefusalReport(commands.updates(), refused, commands.capabilities());
  std::fwrite(report.data(), 1, report.size(), stdout);
  return 0;
}
