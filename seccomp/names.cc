#include "seccomp/names.h"

#include <cerrno>
#include <cstdio>

namespace corral::seccomp {
namespace {

constexpr std::pair<Action, std::string_view> kActions[] = {
    {Action::kAllow, "SCMP_ACT_ALLOW"},
    {Action::kErrno, "SCMP_ACT_ERRNO"},
    {Action::kKillThread, "SCMP_ACT_KILL"},
    {Action::kKillProcess, "SCMP_ACT_KILL_PROCESS"},
    {Action::kTrap, "SCMP_ACT_TRAP"},
    {Action::kLog, "SCMP_ACT_LOG"},
};

constexpr std::pair<Op, std::string_view> kOps[] = {
    {Op::kNe, "SCMP_CMP_NE"}, {Op::kLt, "SCMP_CMP_LT"}, {Op::kLe, "SCMP_CMP_LE"},
    {Op::kEq, "SCMP_CMP_EQ"}, {Op::kGe, "SCMP_CMP_GE"}, {Op::kGt, "SCMP_CMP_GT"},
    {Op::kMaskedEq, "SCMP_CMP_MASKED_EQ"},
};

constexpr std::pair<int, std::string_view> kErrnos[] = {
    {EPERM, "EPERM"}, {ENOSYS, "ENOSYS"}, {EINVAL, "EINVAL"}, {EACCES, "EACCES"},
    {ENOTSUP, "ENOTSUP"}, {EAFNOSUPPORT, "EAFNOSUPPORT"},
};

std::string Hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::string_view ActionToken(Action action) {
  for (const auto& [a, token] : kActions) {
    if (a == action) return token;
  }
  return "SCMP_ACT_KILL_PROCESS";
}

std::optional<Action> ActionFromToken(std::string_view token) {
  if (token == "SCMP_ACT_KILL_THREAD") return Action::kKillThread;
  for (const auto& [action, name] : kActions) {
    if (name == token) return action;
  }
  return std::nullopt;
}

std::string_view OpToken(Op op) {
  for (const auto& [o, token] : kOps) {
    if (o == op) return token;
  }
  return "SCMP_CMP_EQ";
}

std::optional<Op> OpFromToken(std::string_view token) {
  for (const auto& [op, name] : kOps) {
    if (name == token) return op;
  }
  return std::nullopt;
}

std::string DescribeAction(Action action, int errno_value) {
  switch (action) {
    case Action::kAllow: return "allow";
    case Action::kLog: return "allow and log";
    case Action::kKillThread: return "kill the thread";
    case Action::kKillProcess: return "kill the process";
    case Action::kTrap: return "SIGSYS";
    case Action::kErrno: break;
  }
  for (const auto& [value, name] : kErrnos) {
    if (value == errno_value) return "errno " + std::string(name);
  }
  return "errno " + std::to_string(errno_value);
}

std::string DescribeCondition(const ArgCondition& c) {
  std::string arg = "arg" + std::to_string(c.index);
  switch (c.op) {
    case Op::kNe: return arg + " != " + Hex(c.value);
    case Op::kLt: return arg + " < " + Hex(c.value);
    case Op::kLe: return arg + " <= " + Hex(c.value);
    case Op::kEq: return arg + " == " + Hex(c.value);
    case Op::kGe: return arg + " >= " + Hex(c.value);
    case Op::kGt: return arg + " > " + Hex(c.value);
    case Op::kMaskedEq: return arg + " & " + Hex(c.value) + " == " + Hex(c.value_two);
  }
  return arg;
}

}  // namespace corral::seccomp
