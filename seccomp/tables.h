// Data for the default profile (tables.cc). Private to seccomp/.
#pragma once

#include <string_view>
#include <vector>

namespace corral::seccomp::internal {

const std::vector<std::string_view>& EngineAllowlist();
const std::vector<std::string_view>& EngineArchAllowlist();

// A group of system calls the box refuses, with the errno they answer and why.
struct Refusal {
  std::string_view group;
  int errno_value;
  std::vector<std::string_view> names;
  std::string_view why;
};
const std::vector<Refusal>& Refusals();

}  // namespace corral::seccomp::internal
