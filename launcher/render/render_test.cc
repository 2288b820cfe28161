#include <gtest/gtest.h>

#include "launcher/session_plan.h"
#include "launcher/test_util.h"
#include "launcher/plan/plan.h"
#include "launcher/render/render.h"

namespace corral::launcher {
namespace {

using nlohmann::json;
using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

SessionPlan TestPlan(const TempTree& tree, const policy::Policy& policy) {
  tree.File("p/.env", "K=1");
  tree.File("p/.git/config", "");
  auto plan = MakePlan(TestInput(policy, tree, tree.Dir("p")));
  EXPECT_TRUE(plan) << plan.error().message;
  return *plan;
}

const json* MountAt(const json& mounts, const std::string& key, const std::string& target) {
  for (const json& m : mounts) {
    if (m.value(key, "") == target) return &m;
  }
  return nullptr;
}

TEST(OciRender, HardensTheProcessAndNamespaces) {
  TempTree tree;
  auto policy = TestPolicy();
  json config = oci::Render(TestPlan(tree, policy));
  EXPECT_EQ(config["root"]["readonly"], true);
  EXPECT_EQ(config["process"]["noNewPrivileges"], true);
  // Root with the exec gate's four capabilities, which the shim drops
  // before the agent starts (its --user says to whom).
  json gate = {"CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_DAC_OVERRIDE",
               "CAP_DAC_READ_SEARCH", "CAP_CHOWN"};
  for (const char* set : {"bounding", "effective", "permitted"}) {
    EXPECT_EQ(config["process"]["capabilities"][set], gate) << set;
  }
  for (const char* set : {"inheritable", "ambient"}) {
    EXPECT_TRUE(config["process"]["capabilities"][set].empty()) << set;
  }
  EXPECT_EQ(config["process"]["user"]["uid"], 0);
  SessionPlan no_gate = TestPlan(tree, policy);
  no_gate.exec_gate = false;
  json plain = oci::Render(no_gate);
  for (const char* set : {"bounding", "effective", "inheritable", "permitted", "ambient"}) {
    EXPECT_TRUE(plain["process"]["capabilities"][set].empty()) << set;
  }
  EXPECT_EQ(plain["process"]["user"]["uid"], 1000);
  EXPECT_EQ(config["process"]["args"][0], kShimInBox);
  bool network = false;
  for (const json& ns : config["linux"]["namespaces"]) network |= ns["type"] == "network";
  EXPECT_TRUE(network) << "an empty network namespace: only lo";
  EXPECT_EQ(config["linux"]["resources"]["pids"]["limit"], 256);
  EXPECT_EQ(config["linux"]["resources"]["devices"][0]["allow"], false);
  EXPECT_FALSE(config["linux"]["seccomp"].contains("archMap")) << "flattened, no Docker fields";
  EXPECT_FALSE(config["linux"]["maskedPaths"].empty());
  const json* env = MountAt(config["mounts"], "destination", tree.root() + "/p/.env");
  ASSERT_NE(env, nullptr);
  EXPECT_NE(std::find((*env)["options"].begin(), (*env)["options"].end(), "ro"),
            (*env)["options"].end());
  const json* home = MountAt(config["mounts"], "destination", "/home/corral");
  ASSERT_NE(home, nullptr);
  EXPECT_EQ((*home)["source"].get<std::string>().rfind(tree.root() + "/home/user/.local/state/corral/volumes/corral-p-", 0), 0u);
}

TEST(DockerRender, CreateBody) {
  TempTree tree;
  auto policy = TestPolicy();
  SessionPlan plan = TestPlan(tree, policy);
  json body = docker::Render(plan);
  const json& host = body["HostConfig"];
  EXPECT_EQ(host["NetworkMode"], "none");
  EXPECT_EQ(host["CapDrop"], json::array({"ALL"}));
  EXPECT_EQ(host["SecurityOpt"][0], "no-new-privileges");
  ASSERT_EQ(host["SecurityOpt"][1].get<std::string>().rfind("seccomp={", 0), 0u);
  EXPECT_EQ(json::parse(host["SecurityOpt"][1].get<std::string>().substr(8)), plan.seccomp);
  EXPECT_EQ(host["ReadonlyRootfs"], true);
  EXPECT_EQ(host["PidsLimit"], 256);
  EXPECT_EQ(host["Memory"], 512LL << 20);
  EXPECT_EQ(host["Tmpfs"]["/tmp"], "rw,noexec,nosuid,nodev,size=1g,mode=1777");
  EXPECT_EQ(body["User"], "0:0");
  EXPECT_EQ(host["CapAdd"], json::array({"SYS_ADMIN", "SETUID", "SETGID", "SETPCAP", "DAC_OVERRIDE", "DAC_READ_SEARCH", "CHOWN"}));
  plan.exec_gate = false;
  EXPECT_EQ(docker::Render(plan)["User"], "1000:1000");
  EXPECT_EQ(docker::Render(plan)["HostConfig"]["CapAdd"], json::array());
  EXPECT_EQ(body["Entrypoint"], plan.command);
  EXPECT_EQ(body["Labels"][kLabelSession], plan.session_id);
  const json* hooks = MountAt(host["Mounts"], "Target", tree.root() + "/p/.git/hooks");
  ASSERT_NE(hooks, nullptr);
  EXPECT_EQ((*hooks)["ReadOnly"], true);
  const json* modules = MountAt(host["Mounts"], "Target", tree.root() + "/p/node_modules");
  ASSERT_NE(modules, nullptr);
  EXPECT_EQ((*modules)["Type"], "volume");
  for (const json& u : host["Ulimits"]) EXPECT_LE(u["Hard"].get<std::uint64_t>(), 8192u);
}

// The network mode's binds from a volume that is filled while the box is
// made: Docker checks a Binds entry's source at start, a Mounts entry's at
// create, so they go as Binds; a path a Binds entry cannot hold stays a
// mount. Its volumes are never filled from the image.
TEST(DockerRender, LateSourcesGoAsBindsAndCorralsVolumesAreNotCopiedInto) {
  TempTree tree;
  auto policy = TestPolicy();
  SessionPlan plan = TestPlan(tree, policy);
  plan.mounts = {
      {MountKind::kBind, "/volumes/s/_data/passwd", "/etc/passwd", true,
       {"rslave", kLateSource}, ""},
      {MountKind::kBind, "/volumes/p/_data/.git/config", "/w/a:b/.git/config", true,
       {"rslave", kLateSource}, ""},
      {MountKind::kBind, "/host/file", "/etc/other", false, {}, ""},
      {MountKind::kVolume, "corral-x-project", "/w/p", false, {kNoCopy}, ""},
      {MountKind::kVolume, "corral-p-home", "/home/corral", false, {}, ""},
  };
  const json host = docker::Render(plan)["HostConfig"];
  EXPECT_EQ(host["Binds"], json::array({"/volumes/s/_data/passwd:/etc/passwd:ro,rslave"}));
  EXPECT_EQ(MountAt(host["Mounts"], "Target", "/etc/passwd"), nullptr);
  const json* colon = MountAt(host["Mounts"], "Target", "/w/a:b/.git/config");
  ASSERT_NE(colon, nullptr) << "a ':' cannot go in a Binds entry";
  EXPECT_EQ((*colon)["Type"], "bind");
  ASSERT_NE(MountAt(host["Mounts"], "Target", "/etc/other"), nullptr);
  const json* project = MountAt(host["Mounts"], "Target", "/w/p");
  ASSERT_NE(project, nullptr);
  EXPECT_EQ((*project)["VolumeOptions"]["NoCopy"], true);
  const json* home = MountAt(host["Mounts"], "Target", "/home/corral");
  ASSERT_NE(home, nullptr);
  EXPECT_FALSE((*home)["VolumeOptions"].contains("NoCopy")) << "an image's home may seed it";
  json spec = libpod::Render(plan);
  for (const json& v : spec["volumes"]) {
    bool nocopy = std::find(v["Options"].begin(), v["Options"].end(), "nocopy") != v["Options"].end();
    EXPECT_EQ(nocopy, v["Name"] == "corral-x-project") << v.dump();
  }
  // Under gVisor Podman 4 would hand "nocopy" to runsc, which refuses it.
  plan.runtime = kGvisorRuntime;
  const json gvisor_spec = libpod::Render(plan);
  for (const json& v : gvisor_spec["volumes"]) {
    EXPECT_EQ(std::find(v["Options"].begin(), v["Options"].end(), "nocopy"), v["Options"].end())
        << v.dump();
  }
  const json gvisor_host = docker::Render(plan)["HostConfig"];
  const json* gvisor_project = MountAt(gvisor_host["Mounts"], "Target", "/w/p");
  ASSERT_NE(gvisor_project, nullptr);
  EXPECT_EQ((*gvisor_project)["VolumeOptions"]["NoCopy"], true) << "Docker keeps it to itself";
}

TEST(LibpodRender, SpecGenerator) {
  TempTree tree;
  auto policy = TestPolicy();
  SessionPlan plan = TestPlan(tree, policy);
  json spec = libpod::Render(plan);
  EXPECT_EQ(spec["netns"]["nsmode"], "none");
  EXPECT_EQ(spec["cap_drop"], json::array({"ALL"}));
  EXPECT_EQ(spec["no_new_privileges"], true);
  EXPECT_EQ(spec["read_only_filesystem"], true);
  EXPECT_EQ(spec["seccomp_profile_path"], plan.session_dir + "/seccomp.json");
  EXPECT_EQ(spec["resource_limits"]["pids"]["limit"], 256);
  EXPECT_EQ(spec["env"]["HOME"], "/home/corral");
  EXPECT_EQ(spec["user"], "0:0");
  EXPECT_EQ(spec["cap_add"], json::array({"SYS_ADMIN", "SETUID", "SETGID", "SETPCAP", "DAC_OVERRIDE", "DAC_READ_SEARCH", "CHOWN"}));
  plan.exec_gate = false;
  EXPECT_EQ(libpod::Render(plan)["user"], "1000:1000");
  bool home_volume = false;
  for (const json& v : spec["volumes"]) home_volume |= v["Dest"] == "/home/corral";
  EXPECT_TRUE(home_volume);
  const json* tmp = MountAt(spec["mounts"], "destination", "/tmp");
  ASSERT_NE(tmp, nullptr);
  EXPECT_EQ((*tmp)["type"], "tmpfs");
}

// The network mode mounts the session volume read-only: Podman must be told
// so in the volume's options, or the box can write into its own session.
TEST(LibpodRender, AReadOnlyVolumeIsMountedReadOnly) {
  TempTree tree;
  auto policy = TestPolicy();
  SessionPlan plan = TestPlan(tree, policy);
  plan.mounts.push_back({MountKind::kVolume, "corral-s-session", "/run/corral", true, {}, "ro"});
  json spec = libpod::Render(plan);
  for (const json& v : spec["volumes"]) {
    bool read_only = v["Dest"] == "/run/corral";
    EXPECT_EQ(v["Options"], read_only ? json::array({"ro"}) : json::array()) << v;
  }
}

TEST(LibpodRender, NoResourceLimitsFieldWithoutLimits) {
  TempTree tree;
  auto policy = TestPolicy();
  SessionPlan plan = TestPlan(tree, policy);
  plan.limits = Limits{};
  plan.limits.pids = 0;
  // Podman warns "Resource limits are not supported and ignored" (rootless,
  // cgroups v1) whenever the field is there, even empty.
  EXPECT_FALSE(libpod::Render(plan).contains("resource_limits"));
}

TEST(Render, GvisorNamesRunscOnEachEngineAndNothingByDefault) {
  TempTree tree;
  auto policy = TestPolicy();
  SessionPlan plan = TestPlan(tree, policy);
  EXPECT_FALSE(docker::Render(plan)["HostConfig"].contains("Runtime"));
  EXPECT_FALSE(libpod::Render(plan).contains("oci_runtime"));
  policy.runtime = policy::BoxRuntime::kGvisor;
  plan = TestPlan(tree, policy);
  EXPECT_EQ(docker::Render(plan)["HostConfig"]["Runtime"], "runsc");
  EXPECT_EQ(libpod::Render(plan)["oci_runtime"], "runsc");
  EXPECT_EQ(docker::Render(plan)["HostConfig"]["NetworkMode"], "none");
  EXPECT_EQ(docker::Render(plan)["User"], "1000:1000") << "no exec gate under gVisor";
}

TEST(Describe, SaysWhatTheBoxIs) {
  TempTree tree;
  auto policy = TestPolicy();
  SessionPlan plan = TestPlan(tree, policy);
  std::string text = DescribePlan(plan);
  EXPECT_NE(text.find("network: none"), std::string::npos);
  EXPECT_NE(text.find("masked (filesystem.deny_read)"), std::string::npos);
  std::string summary = Summary(plan, "docker");
  EXPECT_EQ(std::count(summary.begin(), summary.end(), '\n'), 2);
}

}  // namespace
}  // namespace corral::launcher
