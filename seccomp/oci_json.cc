// The OCI linux.seccomp object, written flattened and read in any of the
// forms engines use (flattened, whole config.json, Docker/Podman profile).
#include <algorithm>
#include <set>

#include "seccomp/arch.h"
#include "seccomp/names.h"
#include "seccomp/seccomp.h"

namespace corral::seccomp {
namespace {

using nlohmann::json;

// A rule with includes/excludes, as it applies to a box on our architectures
// that has no capabilities: a rule for some capability holder never applies,
// one for those without it always does. minKernel is taken as met.
bool AppliesToBox(const json& syscall) {
  if (auto includes = syscall.find("includes"); includes != syscall.end() && includes->is_object()) {
    if (includes->contains("caps") && !includes->at("caps").empty()) return false;
    if (includes->contains("arches") && !includes->at("arches").empty()) {
      const auto& arches = includes->at("arches");
      return std::any_of(arches.begin(), arches.end(), [](const json& arch) {
        return arch.is_string() && ArchFromGoName(arch.get<std::string>()).has_value();
      });
    }
  }
  return true;
}

Result<ArgCondition> ParseArg(const json& arg) {
  ArgCondition condition;
  condition.index = arg.at("index").get<unsigned>();
  condition.value = arg.at("value").get<std::uint64_t>();
  condition.value_two = arg.value("valueTwo", std::uint64_t{0});
  auto op = OpFromToken(arg.at("op").get<std::string>());
  if (!op) return Error("unknown op " + arg.at("op").dump());
  condition.op = *op;
  return condition;
}

// One JSON syscalls entry. Several conditions on one argument become one
// rule each, as runc and crun do.
Result<std::vector<Rule>> ParseSyscall(const json& syscall) {
  Rule rule;
  rule.names = syscall.at("names").get<std::vector<std::string>>();
  std::string token = syscall.at("action").get<std::string>();
  auto action = ActionFromToken(token);
  if (!action) return Error("action " + token + " is not one corral reads");
  rule.action = *action;
  rule.errno_value = syscall.value("errnoRet", EPERM);
  rule.comment = syscall.value("comment", "");
  std::set<unsigned> indexes;
  bool repeated = false;
  if (auto args = syscall.find("args"); args != syscall.end() && args->is_array()) {
    for (const auto& arg : *args) {
      auto condition = ParseArg(arg);
      if (!condition) return condition.error();
      repeated = repeated || !indexes.insert(condition->index).second;
      rule.args.push_back(*condition);
    }
  }
  if (!repeated) return std::vector<Rule>{rule};
  std::vector<Rule> split;
  for (const auto& condition : rule.args) {
    Rule one = rule;
    one.args = {condition};
    split.push_back(std::move(one));
  }
  return split;
}

// A rule that does not apply yields none; an exception becomes an error here
// so that it can say which entry it was about.
Result<std::vector<Rule>> ParseEntry(const json& syscall) {
  try {
    if (!AppliesToBox(syscall)) return std::vector<Rule>{};
    return ParseSyscall(syscall);
  } catch (const json::exception& e) {
    return Error(e.what());
  }
}

std::vector<Arch> ParseArchitectures(const json& seccomp) {
  std::vector<std::string> tokens;
  if (auto list = seccomp.find("architectures"); list != seccomp.end() && list->is_array()) {
    for (const auto& token : *list) tokens.push_back(token.get<std::string>());
  }
  if (auto map = seccomp.find("archMap"); map != seccomp.end() && map->is_array()) {
    for (const auto& entry : *map) {
      tokens.push_back(entry.at("architecture").get<std::string>());
      for (const auto& sub : entry.value("subArchitectures", json::array())) {
        tokens.push_back(sub.get<std::string>());
      }
    }
  }
  std::vector<Arch> arches;
  for (const auto& token : tokens) {
    auto arch = ArchFromToken(token);
    if (arch && std::find(arches.begin(), arches.end(), *arch) == arches.end()) {
      arches.push_back(*arch);
    }
  }
  return arches;
}

Result<Profile> Parse(const json& input) {
  const json* seccomp = &input;
  if (input.is_object() && input.contains("linux")) {
    if (!input["linux"].contains("seccomp")) return Error("this OCI config has no linux.seccomp");
    seccomp = &input["linux"]["seccomp"];
  }
  if (!seccomp->is_object() || !seccomp->contains("defaultAction")) {
    return Error("not a seccomp profile: expected an object with defaultAction");
  }
  Profile profile;
  std::string token = seccomp->at("defaultAction").get<std::string>();
  auto action = ActionFromToken(token);
  if (!action) return Error("defaultAction " + token + " is not one corral reads");
  profile.default_action = *action;
  profile.default_errno = seccomp->value("defaultErrnoRet", EPERM);
  profile.architectures = ParseArchitectures(*seccomp);
  if (auto syscalls = seccomp->find("syscalls"); syscalls != seccomp->end() && !syscalls->is_null()) {
    std::size_t index = 0;
    for (const auto& syscall : *syscalls) {
      auto rules = ParseEntry(syscall);
      if (!rules) return rules.error().Context("syscalls[" + std::to_string(index) + "]");
      for (auto& rule : *rules) profile.rules.push_back(std::move(rule));
      ++index;
    }
  }
  return profile;
}

}  // namespace

json ToOci(const Profile& profile) {
  json out = {{"defaultAction", ActionToken(profile.default_action)}};
  if (profile.default_action == Action::kErrno) out["defaultErrnoRet"] = profile.default_errno;
  out["architectures"] = json::array();
  for (Arch arch : profile.architectures) out["architectures"].push_back(ArchToken(arch));
  out["syscalls"] = json::array();
  for (const auto& rule : profile.rules) {
    if (rule.names.empty()) continue;  // the schema wants at least one name
    json syscall = {{"names", rule.names}, {"action", ActionToken(rule.action)}};
    if (rule.action == Action::kErrno) syscall["errnoRet"] = rule.errno_value;
    if (!rule.args.empty()) {
      syscall["args"] = json::array();
      for (const auto& arg : rule.args) {
        syscall["args"].push_back({{"index", arg.index},
                                   {"value", arg.value},
                                   {"valueTwo", arg.value_two},
                                   {"op", OpToken(arg.op)}});
      }
    }
    out["syscalls"].push_back(std::move(syscall));
  }
  return out;
}

Result<Profile> FromJson(const json& input) {
  try {
    return Parse(input);
  } catch (const json::exception& e) {
    return Error(std::string("unexpected shape: ") + e.what());
  }
}

Result<Profile> ReadProfileFile(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text) return text.error();
  json parsed = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Error(path + ": not valid JSON");
  auto profile = FromJson(parsed);
  if (!profile) return profile.error().Context(path);
  return profile;
}

}  // namespace corral::seccomp
