// What a profile does with each system call name, and how two profiles
// differ: what each allows that the other refuses.
#include <algorithm>
#include <set>

#include "seccomp/names.h"
#include "seccomp/seccomp.h"

namespace corral::seccomp {
namespace {

bool Allows(Action action) { return action == Action::kAllow || action == Action::kLog; }
bool AllowsSome(const Verdict& v) { return v.access != Access::kRefused; }

std::string DescribeConditions(const std::vector<ArgCondition>& conditions) {
  std::string text;
  for (const auto& condition : conditions) {
    text += (text.empty() ? "" : " and ") + DescribeCondition(condition);
  }
  return text;
}

// Allowances compared as sets: the order of rules does not change them.
std::set<std::string> ConditionSet(const Verdict& v) {
  std::set<std::string> set;
  for (const auto& conditions : v.conditions) set.insert(DescribeConditions(conditions));
  return set;
}

std::set<std::string> AllNames(const Profile& profile) {
  std::set<std::string> names;
  for (const auto& rule : profile.rules) names.insert(rule.names.begin(), rule.names.end());
  return names;
}

Verdict DefaultVerdict(const Profile& profile) {
  if (Allows(profile.default_action)) {
    return {Access::kAllowed, DescribeAction(profile.default_action, 0) + " (default)", {}};
  }
  return {Access::kRefused,
          DescribeAction(profile.default_action, profile.default_errno) + " (default)",
          {}};
}

}  // namespace

Verdict VerdictFor(const Profile& profile, std::string_view name) {
  Verdict verdict;
  bool allowed = false;
  std::string refusal;
  for (const auto& rule : profile.rules) {
    if (std::find(rule.names.begin(), rule.names.end(), name) == rule.names.end()) continue;
    if (Allows(rule.action) && rule.args.empty()) {
      allowed = true;
    } else if (Allows(rule.action)) {
      verdict.conditions.push_back(rule.args);
    } else if (rule.args.empty() && refusal.empty()) {
      refusal = DescribeAction(rule.action, rule.errno_value);
    }
  }
  if (allowed) return {Access::kAllowed, "allow", {}};
  if (!verdict.conditions.empty()) {
    verdict.access = Access::kConditional;
    verdict.detail = "allow when ";
    for (std::size_t i = 0; i < verdict.conditions.size(); ++i) {
      verdict.detail += (i ? " or " : "") + DescribeConditions(verdict.conditions[i]);
    }
    return verdict;
  }
  if (!refusal.empty()) return {Access::kRefused, refusal, {}};
  return DefaultVerdict(profile);
}

ProfileDiff Diff(const Profile& left, const Profile& right) {
  ProfileDiff diff;
  std::set<std::string> names = AllNames(left);
  names.merge(AllNames(right));
  for (const auto& name : names) {
    Difference d{name, VerdictFor(left, name), VerdictFor(right, name)};
    if (AllowsSome(d.left) && !AllowsSome(d.right)) {
      diff.left_only.push_back(std::move(d));
    } else if (AllowsSome(d.right) && !AllowsSome(d.left)) {
      diff.right_only.push_back(std::move(d));
    } else if (AllowsSome(d.left) &&
               (d.left.access != d.right.access || ConditionSet(d.left) != ConditionSet(d.right))) {
      diff.other_conditions.push_back(std::move(d));
    }
  }
  // Every name neither lists: compared through the default actions.
  Difference rest{"(any other)", DefaultVerdict(left), DefaultVerdict(right)};
  if (AllowsSome(rest.left) && !AllowsSome(rest.right)) diff.left_only.push_back(rest);
  if (AllowsSome(rest.right) && !AllowsSome(rest.left)) diff.right_only.push_back(rest);
  return diff;
}

}  // namespace corral::seccomp
