#include "netfilter/forge/github_rest_body.h"

#include <exception>

#include "netfilter/forge/github_rest_path.h"

namespace corral::netfilter::forge::rest {
namespace {

// A string field; nullopt when absent or of another type (`wrong_type` says which).
std::optional<std::string> StringField(const nlohmann::json& body, const char* name,
                                       bool* wrong_type) {
  auto it = body.find(name);
  if (it == body.end()) return std::nullopt;
  if (!it->is_string()) {
    *wrong_type = true;
    return std::nullopt;
  }
  return it->get<std::string>();
}

}  // namespace

std::optional<nlohmann::json> ParseBodyObject(std::string_view text) {
  try {
    std::set<std::string> keys;
    bool repeated = false;
    auto note_keys = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      if (depth == 1 && event == nlohmann::json::parse_event_t::key && parsed.is_string()) {
        repeated |= !keys.insert(parsed.get<std::string>()).second;
      }
      return true;
    };
    nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), note_keys, false);
    if (repeated || !value.is_object()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool IsProtectedBranch(std::string_view branch, const std::set<std::string>& protected_branches) {
  if (branch.starts_with("refs/")) branch.remove_prefix(5);
  std::string_view bare = branch.starts_with("heads/") ? branch.substr(6) : branch;
  for (const std::string& name : protected_branches) {
    if (EqualsIgnoreCase(name, branch) || EqualsIgnoreCase(name, bare)) return true;
  }
  return false;
}

BodyOutcome CheckForce(const nlohmann::json& body) {
  auto it = body.find("force");
  if (it == body.end()) return BodyOutcome::kPass;  // GitHub's default: a fast-forward only
  if (!it->is_boolean()) return BodyOutcome::kUnreadable;
  return it->get<bool>() ? BodyOutcome::kRefuse : BodyOutcome::kPass;
}

BodyOutcome CheckNewRef(const nlohmann::json& body,
                        const std::set<std::string>& protected_branches) {
  bool wrong_type = false;
  auto ref = StringField(body, "ref", &wrong_type);
  // GitHub itself rejects a ref that does not start with "refs/".
  if (!ref || !ref->starts_with("refs/")) return BodyOutcome::kUnreadable;
  bool protected_branch =
      ref->starts_with("refs/heads/") && IsProtectedBranch(*ref, protected_branches);
  return protected_branch ? BodyOutcome::kRefuse : BodyOutcome::kPass;
}

BodyOutcome CheckContentsBranch(const nlohmann::json& body,
                                const std::set<std::string>& protected_branches) {
  if (auto it = body.find("branch"); it != body.end() && it->is_null()) return BodyOutcome::kRefuse;
  bool wrong_type = false;
  auto branch = StringField(body, "branch", &wrong_type);
  if (wrong_type) return BodyOutcome::kUnreadable;
  bool to_default = !branch || branch->empty() || *branch == "refs/heads/" || *branch == "heads/";
  return to_default || IsProtectedBranch(*branch, protected_branches) ? BodyOutcome::kRefuse
                                                                      : BodyOutcome::kPass;
}

BodyOutcome CheckBranchField(const nlohmann::json& body, const char* field,
                             const std::set<std::string>& protected_branches) {
  bool wrong_type = false;
  auto branch = StringField(body, field, &wrong_type);
  if (!branch || branch->empty()) return BodyOutcome::kUnreadable;  // GitHub requires it
  return IsProtectedBranch(*branch, protected_branches) ? BodyOutcome::kRefuse : BodyOutcome::kPass;
}

}  // namespace corral::netfilter::forge::rest
