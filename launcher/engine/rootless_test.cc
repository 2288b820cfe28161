#include <gtest/gtest.h>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

using nlohmann::json;

Limits Wanted() {
  Limits limits;
  limits.pids = 1024;
  limits.memory_bytes = std::int64_t{4} << 30;
  limits.cpu_quota = 150000;
  return limits;
}

// Podman 4.3's /info on this kind of host: rootless, cgroups v1, no controllers.
json RootlessPodmanV1() {
  return json::parse(R"({"host": {"cgroupVersion": "v1", "cgroupControllers": [],
                                  "security": {"rootless": true}}})");
}

TEST(EngineFacts, PodmanSaysRootlessVersionAndControllers) {
  EngineFacts facts = PodmanFacts(RootlessPodmanV1());
  EXPECT_TRUE(facts.rootless);
  EXPECT_EQ(facts.cgroup_version, 1);
  ASSERT_TRUE(facts.controllers);
  EXPECT_TRUE(facts.controllers->empty());
  EngineFacts silent = PodmanFacts(json::parse(R"({"host": {}})"));
  EXPECT_FALSE(silent.controllers) << "no list: the engine did not say";
}

TEST(EngineFacts, DockerSaysRootlessInSecurityOptions) {
  EngineFacts rootless = DockerFacts(json::parse(
      R"({"SecurityOptions": ["name=seccomp,profile=default", "name=rootless"],
          "CgroupVersion": "1", "MemoryLimit": false, "PidsLimit": false, "CpuCfsQuota": false})"));
  EXPECT_TRUE(rootless.rootless);
  EXPECT_EQ(rootless.cgroup_version, 1);
  EXPECT_TRUE(rootless.controllers->empty());
  EngineFacts rootful = DockerFacts(json::parse(
      R"({"SecurityOptions": ["name=seccomp,profile=default"], "CgroupVersion": "2",
          "MemoryLimit": true, "PidsLimit": true, "CpuCfsQuota": true})"));
  EXPECT_FALSE(rootful.rootless);
  EXPECT_EQ(*rootful.controllers, (std::vector<std::string>{"memory", "pids", "cpu"}));
}

TEST(EngineFacts, RuntimeAndSeccompAsEachEngineSaysThem) {
  EngineFacts podman = PodmanFacts(json::parse(
      R"({"host": {"ociRuntime": {"name": "runc"}, "security": {"seccompEnabled": true}}})"));
  EXPECT_EQ(podman.runtime, "runc");
  EXPECT_EQ(podman.seccomp, std::optional<bool>(true));
  EXPECT_FALSE(PodmanFacts(json::parse(R"({"host": {}})")).seccomp) << "not said";
  EngineFacts docker = DockerFacts(json::parse(
      R"({"DefaultRuntime": "crun", "SecurityOptions": ["name=seccomp,profile=builtin"]})"));
  EXPECT_EQ(docker.runtime, "crun");
  EXPECT_EQ(docker.seccomp, std::optional<bool>(true));
  EngineFacts without = DockerFacts(json::parse(R"({"SecurityOptions": ["name=apparmor"]})"));
  EXPECT_EQ(without.seccomp, std::optional<bool>(false)) << "listed, but not seccomp";
  EXPECT_FALSE(DockerFacts(json::parse("{}")).seccomp) << "not said";
}

TEST(EngineFacts, DockerListsItsRuntimesWithTheirArguments) {
  EngineFacts docker = DockerFacts(json::parse(R"({"Runtimes": {"runc": {"path": "runc"},
      "runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--host-uds=open", "--oci-seccomp"]}}})"));
  EXPECT_EQ(docker.runtimes.size(), 2u);
  EXPECT_TRUE(docker.runtimes.at("runc").empty());
  EXPECT_EQ(docker.runtimes.at("runsc"),
            (std::vector<std::string>{"--host-uds=open", "--oci-seccomp"}));
  EXPECT_TRUE(DockerFacts(json::parse("{}")).runtimes.empty());
}

TEST(JudgeLimits, RootlessPodmanOnCgroupsV1HoldsOnlyPidsThroughNproc) {
  LimitsVerdict verdict = JudgeLimits(Wanted(), PodmanFacts(RootlessPodmanV1()), /*podman=*/true);
  EXPECT_EQ(verdict.not_in_force, (std::vector<std::string>{"memory 4096 MiB", "cpu 150/100 ms"}));
  EXPECT_NE(verdict.why.find("rootless Podman on cgroups v1 cannot set cgroup limits"),
            std::string::npos)
      << verdict.why;
  EXPECT_TRUE(verdict.pids_by_nproc);
}

TEST(JudgeLimits, DockerWithoutPidsCgroupSaysSoAndHasNoFallback) {
  EngineFacts facts;
  facts.controllers = std::vector<std::string>{"memory", "cpu"};
  LimitsVerdict verdict = JudgeLimits(Wanted(), facts, /*podman=*/false);
  EXPECT_EQ(verdict.not_in_force, std::vector<std::string>{"pids 1024"});
  EXPECT_FALSE(verdict.pids_by_nproc) << "no user namespace of the box's own: nproc counts the user";
}

TEST(JudgeLimits, RootlessOnCgroupsV2NamesDelegation) {
  EngineFacts facts;
  facts.rootless = true;
  facts.cgroup_version = 2;
  facts.controllers = std::vector<std::string>{"memory", "pids"};
  LimitsVerdict verdict = JudgeLimits(Wanted(), facts, /*podman=*/true);
  EXPECT_EQ(verdict.not_in_force, std::vector<std::string>{"cpu 150/100 ms"});
  EXPECT_NE(verdict.why.find("not delegated"), std::string::npos) << verdict.why;
  EXPECT_FALSE(verdict.pids_by_nproc);
}

TEST(JudgeLimits, AnEngineThatDoesNotSayHoldsEverything) {
  LimitsVerdict verdict = JudgeLimits(Wanted(), EngineFacts{}, /*podman=*/true);
  EXPECT_TRUE(verdict.not_in_force.empty());
  EXPECT_FALSE(verdict.pids_by_nproc);
  EXPECT_EQ(LimitsLine(Wanted(), verdict), "");
}

TEST(JudgeLimits, LimitsNotAskedForAreNotReported) {
  Limits none;
  none.pids = 0;
  LimitsVerdict verdict = JudgeLimits(none, PodmanFacts(RootlessPodmanV1()), /*podman=*/true);
  EXPECT_TRUE(verdict.not_in_force.empty());
  EXPECT_FALSE(verdict.pids_by_nproc);
}

TEST(ApplyVerdict, DropsWhatIsNotInForceAndMovesPidsToNproc) {
  SessionPlan plan;
  plan.limits = Wanted();
  plan.limits.pids = 128;
  plan.ulimits = {{"nofile", 8192, 8192}, {"nproc", 4096, 4096}};
  ApplyVerdict(plan, JudgeLimits(plan.limits, PodmanFacts(RootlessPodmanV1()), true));
  EXPECT_EQ(plan.limits.memory_bytes, 0);
  EXPECT_EQ(plan.limits.cpu_quota, 0);
  EXPECT_EQ(plan.limits.pids, 0) << "the engine would ignore it, with a warning";
  EXPECT_EQ(plan.ulimits[1].soft, 128u);
  EXPECT_EQ(plan.ulimits[1].hard, 128u);
  EXPECT_EQ(plan.ulimits[0].soft, 8192u);
}

TEST(SubordinateRanges, ByNameOrUid) {
  std::string text = "alice:100000:65536\n1001:300000:1000\nbob:165536:65536\nbroken:x:1\n";
  EXPECT_EQ(SubordinateRanges(text, "alice", 1001),
            (std::vector<std::string>{"100000-165535", "300000-300999"}));
  EXPECT_TRUE(SubordinateRanges(text, "carol", 1002).empty());
  EXPECT_TRUE(SubordinateRanges(text, "broken", 7).empty());
}

TEST(DescribeRootlessHost, SaysWhatIsMissingAndHowToAddIt) {
  RootlessHost host;
  host.user = "dev";
  host.subuids = {"100000-165535"};
  host.newuidmap = IdMapTool::kInstalled;
  host.newgidmap = IdMapTool::kMissing;
  host.cgroup_version = 1;
  EXPECT_EQ(DescribeRootlessHost(host),
            "rootless setup of dev: subordinate uids 100000-165535, no subordinate gids for dev "
            "in /etc/subgid (usermod --add-subgids 100000-165535 dev, a range no other user has), "
            "newuidmap installed, "
            "newgidmap missing (apt-get install uidmap), cgroups v1");
}

}  // namespace
}  // namespace corral::launcher
