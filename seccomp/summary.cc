// Summary: the profile for people, with the compiled filter's size.
#include <map>
#include <sstream>

#include "seccomp/arch.h"
#include "seccomp/names.h"
#include "seccomp/seccomp.h"

namespace corral::seccomp {
namespace {

std::string Join(const std::vector<std::string>& names, std::string_view separator) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : std::string(separator)) + name;
  return text;
}

std::string SizeLine(const Profile& profile, const std::vector<Arch>& arches) {
  auto size = CompiledSize(profile, arches);
  if (!size) return "not compiled: " + size.error().message;
  return std::to_string(size->instructions) + " BPF instructions (" +
         std::to_string(size->bytes) + " bytes)";
}

std::vector<std::string> AllowedNames(const Profile& profile, Access access) {
  std::map<std::string, bool> seen;
  std::vector<std::string> names;
  for (const auto& rule : profile.rules) {
    for (const auto& name : rule.names) {
      if (seen[name]) continue;
      seen[name] = true;
      if (VerdictFor(profile, name).access == access) names.push_back(name);
    }
  }
  return names;
}

}  // namespace

std::string Summary(const Profile& profile) {
  std::ostringstream out;
  out << "seccomp profile (" << LibseccompVersion() << ", binary-tree filter)\n";
  out << "  default action:  " << DescribeAction(profile.default_action, profile.default_errno)
      << ", for every system call not listed\n";
  std::vector<std::string> arch_names;
  for (Arch arch : profile.architectures) arch_names.emplace_back(ArchName(arch));
  out << "  architectures:   " << (arch_names.empty() ? "the host's" : Join(arch_names, ", "))
      << "\n";

  auto allowed = AllowedNames(profile, Access::kAllowed);
  out << "  allowed:         " << allowed.size() << " names";
  for (Arch arch : profile.architectures) {
    std::size_t count = 0;
    for (const auto& name : allowed) count += ResolveOn(arch, name).has_value();
    out << (arch == profile.architectures.front() ? " (" : ", ") << count << " on "
        << ArchName(arch);
  }
  out << (profile.architectures.empty() ? "\n" : ")\n");
  auto conditional = AllowedNames(profile, Access::kConditional);
  if (!conditional.empty()) out << "  with arguments:\n";
  for (const auto& name : conditional) {
    out << "    " << name << ": " << VerdictFor(profile, name).detail << "\n";
  }

  out << "  refused:\n";
  for (const auto& rule : profile.rules) {
    if (rule.action == Action::kAllow || rule.action == Action::kLog || !rule.args.empty()) {
      continue;
    }
    out << "    " << DescribeAction(rule.action, rule.errno_value) << ": " << Join(rule.names, " ")
        << "\n";
    if (!rule.comment.empty()) out << "      (" << rule.comment << ")\n";
  }

  out << "  compiled filter: " << SizeLine(profile, {}) << " for all architectures\n";
  for (std::vector<Arch> family : {std::vector<Arch>{Arch::kX86_64, Arch::kX86, Arch::kX32},
                                   std::vector<Arch>{Arch::kAarch64, Arch::kArm}}) {
    std::vector<std::string> names;
    for (Arch arch : family) names.emplace_back(ArchName(arch));
    out << "                   " << SizeLine(profile, family) << " for " << Join(names, "+")
        << "\n";
  }
  return out.str();
}

}  // namespace corral::seccomp
