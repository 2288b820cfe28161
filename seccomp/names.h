// Names of actions and operators as OCI and libseccomp spell them, and as
// people read them. Private to seccomp/.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "seccomp/seccomp.h"

namespace corral::seccomp {

std::string_view ActionToken(Action action);  // "SCMP_ACT_ERRNO"
std::optional<Action> ActionFromToken(std::string_view token);
std::string_view OpToken(Op op);  // "SCMP_CMP_MASKED_EQ"
std::optional<Op> OpFromToken(std::string_view token);

// "errno EPERM", "allow", ...; "errno 95" when the errno has no short name here.
std::string DescribeAction(Action action, int errno_value);
// "arg0 & 0x7e020000 == 0x0", "arg2 != 0x9"
std::string DescribeCondition(const ArgCondition& condition);

}  // namespace corral::seccomp
