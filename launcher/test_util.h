// Helpers for launcher unit tests: a throwaway folder tree. Private.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "launcher/session_plan.h"

namespace corral::launcher::testing {

class TempTree {
 public:
  TempTree() {
    char pattern[] = "/tmp/corral-test-XXXXXX";
    root_ = ::mkdtemp(pattern);
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  const std::string& root() const { return root_; }
  std::string Dir(const std::string& relative) const {
    std::filesystem::create_directories(root_ + "/" + relative);
    return root_ + "/" + relative;
  }
  std::string File(const std::string& relative, const std::string& text = "") const {
    std::filesystem::create_directories(std::filesystem::path(root_ + "/" + relative).parent_path());
    std::ofstream(root_ + "/" + relative) << text;
    return root_ + "/" + relative;
  }

 private:
  std::string root_;
};

// A PlanInput for a project under `tree`, with a fake home elsewhere.
inline PlanInput TestInput(const policy::Policy& policy, const TempTree& tree,
                           const std::string& cwd) {
  PlanInput input;
  input.policy = &policy;
  input.cwd = cwd;
  input.agent_command = {"sh", "-c", "id"};
  input.session_id = "0123456789ab";
  input.uid = 1000;
  input.gid = 1000;
  input.home = tree.Dir("home/user");
  input.config_dir = input.home + "/.config/corral";
  input.state_dir = input.home + "/.local/state/corral";
  input.runtime_dir = tree.root() + "/run";
  input.shim_path = tree.File("bin/corral-shim");
  input.shell_path = tree.File("bin/corral-shell");
  input.ca_bundle = tree.File("etc/ca.crt");
  input.getenv = [](const char* name) -> const char* {
    std::string n = name;
    if (n == "TERM") return "xterm";
    if (n == "SECRET_TOKEN") return "s3cret";
    return nullptr;
  };
  return input;
}

inline policy::Policy TestPolicy() {
  policy::Policy policy;
  policy.image = "busybox:latest";
  policy.filesystem.deny_read = {".env", ".env.*", "*.pem", "*.key", "id_*"};
  policy.limits = {256, "512m", "1.5"};
  policy.network.allowed_domains = {"registry.npmjs.org"};
  return policy;
}

}  // namespace corral::launcher::testing
