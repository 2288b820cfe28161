// The plan in words: `corral run --print`, and the two lines before the agent.
#include <algorithm>
#include <sstream>

#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

std::string MountLine(const Mount& m) {
  std::string from = m.kind == MountKind::kTmpfs   ? "tmpfs"
                     : m.kind == MountKind::kVolume ? "volume " + m.source
                                                    : m.source;
  std::string line = "  " + m.target + (m.read_only ? "  (read-only)" : "  (read-write)");
  if (from != m.target) line += "  from " + from;
  return line + "  — " + m.why + "\n";
}

// Under gVisor: which runtime, and what stands in for the exec check.
std::string RuntimeLines(const SessionPlan& plan) {
  if (plan.runtime.empty()) return "";
  std::string lines = "  runtime " + RuntimeName(plan) +
                      ": the box runs on gVisor's kernel, not this machine's\n";
  if (std::find(plan.notes.begin(), plan.notes.end(), kGvisorExecCheckLine) != plan.notes.end()) {
    lines += std::string("  ") + kGvisorExecCheckLine + "\n";
  }
  if (std::string pids = GvisorPidsLine(plan); !pids.empty()) lines += "  " + pids + "\n";
  return lines;
}

}  // namespace

std::string DescribePlan(const SessionPlan& plan) {
  std::ostringstream out;
  out << "session " << plan.session_id << ": " << plan.container_name << "\n"
      << "project " << plan.project_dir << " (working in " << plan.workdir << ")\n"
      << "image " << plan.image << ", running as " << plan.uid << ":" << plan.gid
      << (plan.tty ? ", with a terminal" : ", without a terminal") << "\n"
      << "runtime: " << RuntimeName(plan)
      << (plan.runtime.empty() ? " (the engine's; the box shares this machine's kernel)"
                               : " (a kernel of its own between the agent and this machine's)")
      << "\n"
      << "command:";
  for (const auto& word : plan.command) out << " " << word;
  out << "\nnetwork: " << plan.network_mode
      << " in the box; out only through the session's proxy (127.0.0.1:3128 inside) to:";
  for (const auto& domain : plan.allowed_domains) out << " " << domain;
  for (const auto& port : plan.published) {
    out << "\npublished: " << DescribePublishedPort(port)
        << " (corral carries each connection to the box's 127.0.0.1 port)";
  }
  out << "\nshell commands: checked by the host before they run ($SHELL, make's and npm's "
         "shell and the shell names in PATH are corral-shell)\n"
      << "hardening: "
      << (plan.exec_gate ? "the agent holds no capability (the box starts as root with the exec "
                           "gate's seven and the shim drops them all before the agent starts)"
                         : "all capabilities dropped")
      << ", no-new-privileges, seccomp ("
      << plan.seccomp.value("syscalls", nlohmann::json::array()).size()
      << " rules), read-only root filesystem, no devices\n"
      << "limits: pids " << plan.limits.pids << ", memory "
      << (plan.limits.memory_bytes ? std::to_string(plan.limits.memory_bytes >> 20) + " MiB"
                                   : std::string("none"))
      << ", cpu "
      << (plan.limits.cpu_quota ? std::to_string(plan.limits.cpu_quota / 1000) + "/" +
                                      std::to_string(plan.limits.cpu_period / 1000) + " ms"
                                : std::string("none"));
  for (const auto& u : plan.ulimits) out << ", " << u.name << " " << u.soft;
  out << "\nmounts:\n";
  for (const auto& m : plan.mounts) out << MountLine(m);
  out << "environment:";
  for (const auto& e : plan.env) out << " " << e.substr(0, e.find('='));
  out << "\n";
  if (!plan.passed_by_name.empty()) {
    out << "passed by name (values from your environment, never shown):";
    for (const auto& name : plan.passed_by_name) out << " " << name;
    out << "\n";
  }
  if (!plan.logins.empty()) {
    out << "logins (the box has a stand-in; the session's proxy adds the real value only on "
           "the way to their hosts):\n";
    for (const BoxLogin& login : plan.logins) {
      out << "  " << login.variable << ": in "
          << (login.header.empty() ? "request bodies"
                                   : login.header + (login.prefix.empty() ? "" : " (" + login.prefix + "...)"))
          << " to";
      for (const auto& host : login.hosts) out << " " << host;
      out << (login.file.empty() ? "" : " (from " + login.file + ")") << "\n";
    }
  }
  for (const LoginFile& file : plan.login_files) {
    out << "tokens of " << file.path << " renewed or made through";
    for (const auto& url : file.token_urls) out << " " << url;
    out << ": the box gets new stand-ins, your file the new tokens\n";
  }
  if (!plan.logins_passed.empty()) {
    out << "logins in the box as they are"
        << (plan.logins_passed_why.empty() ? "" : " (" + plan.logins_passed_why + ")") << ":";
    for (const auto& name : plan.logins_passed) out << " " << name;
    out << "\n";
  }
  for (const auto& note : plan.notes) out << note << "\n";
  return out.str();
}

std::string Summary(const SessionPlan& plan, const std::string& engine_name) {
  auto agent = plan.labels.find("corral.agent");
  return "corral: " + (agent != plan.labels.end() ? agent->second : plan.command.back()) +
         " in a box (" + engine_name + ", image " + plan.image +
         "), writing only to " + plan.project_dir + " and temp folders\n"
         "  network only through the proxy (" + std::to_string(plan.allowed_domains.size()) +
         " allowed hosts), no capabilities, seccomp, read-only root; secrets in the project "
         "masked; session " + plan.session_id + "\n" + RuntimeLines(plan);
}

}  // namespace corral::launcher
