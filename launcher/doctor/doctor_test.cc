#include "launcher/doctor/doctor.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

Limits FourGigabytes() {
  Limits limits;
  limits.pids = 1024;
  limits.memory_bytes = std::int64_t{4} << 30;
  return limits;
}

EngineFacts NoControllers() {
  EngineFacts facts;
  facts.rootless = true;
  facts.cgroup_version = 1;
  facts.controllers = std::vector<std::string>{};
  facts.runtime = "runc";
  return facts;
}

RootlessHost ReadyHost() {
  RootlessHost host;
  host.user = "dev";
  host.subuids = {"100000-165535"};
  host.subgids = {"100000-165535"};
  host.newuidmap = host.newgidmap = IdMapTool::kInstalled;
  host.cgroup_version = 2;
  return host;
}

TEST(JudgeRuntime, NamesTheRuntimeAndCgroupsAndPassesWhenEveryLimitHolds) {
  EngineFacts facts;
  facts.runtime = "crun";
  facts.cgroup_version = 2;
  facts.controllers = std::vector<std::string>{"pids", "memory", "cpu"};
  DoctorCheck check = JudgeRuntime(facts, /*podman=*/true, FourGigabytes(), false);
  EXPECT_EQ(check.status, CheckStatus::kOk);
  EXPECT_EQ(check.detail, "runtime crun, cgroups v2, controllers pids memory cpu");
}

TEST(JudgeGvisor, DockerNeedsRunscWithHostSocketsAndItsSeccomp) {
  EngineFacts facts;
  auto judge = [&](policy::ExecCheck check = policy::ExecCheck::kOn) {
    return JudgeGvisor(facts, /*podman=*/false, "docker 28", "unix:///d.sock", check);
  };
  DoctorCheck missing = judge();
  EXPECT_EQ(missing.status, CheckStatus::kFail);
  EXPECT_NE(missing.detail.find("no runtime named runsc"), std::string::npos) << missing.detail;
  EXPECT_NE(missing.fix.find("daemon.json"), std::string::npos);
  facts.runtimes["runsc"] = {"--oci-seccomp"};
  EXPECT_NE(judge().detail.find("--host-uds=open"), std::string::npos);
  facts.runtimes["runsc"] = {"--host-uds=open", "--oci-seccomp"};
  EXPECT_NE(judge().detail.find("--network=none"), std::string::npos);
  facts.runtimes["runsc"] = {"--host-uds=open", "--network=none"};
  EXPECT_NE(judge().detail.find("--oci-seccomp"), std::string::npos);
  facts.runtimes["runsc"] = {"--host-uds=open", "-oci-seccomp", "--network=none",
                             "--platform=ptrace"};
  DoctorCheck ok = judge();
  EXPECT_EQ(ok.status, CheckStatus::kOk) << ok.detail;
  EXPECT_NE(ok.detail.find("exec check is off under gVisor"), std::string::npos);
  EXPECT_EQ(GvisorNotReady(facts, false, "unix:///d.sock"), "");
  DoctorCheck require = judge(policy::ExecCheck::kRequire);
  EXPECT_EQ(require.status, CheckStatus::kFail);
  EXPECT_NE(require.detail.find("seccomp user notification"), std::string::npos);
}

TEST(JudgeGvisor, PodmanPassesWhenItsDefaultIsRunscElseWarns) {
  EngineFacts facts;
  facts.runtime = "runc";
  DoctorCheck warned =
      JudgeGvisor(facts, /*podman=*/true, "podman 4.3.1", "unix:///p.sock",
                  policy::ExecCheck::kOn);
  EXPECT_EQ(warned.status, CheckStatus::kWarn);
  EXPECT_NE(warned.detail.find("containers/podman#28429"), std::string::npos);
  facts.runtime = "runsc";
  EXPECT_EQ(JudgeGvisor(facts, true, "podman 4.3.1", "unix:///p.sock",
                        policy::ExecCheck::kOn).status,
            CheckStatus::kOk);
}

TEST(JudgeRuntime, LimitsNotInForceWarnAndFailOnlyWhenRequired) {
  DoctorCheck warned = JudgeRuntime(NoControllers(), /*podman=*/false, FourGigabytes(), false);
  EXPECT_EQ(warned.status, CheckStatus::kWarn);
  EXPECT_NE(warned.detail.find("memory 4096 MiB"), std::string::npos) << warned.detail;
  EXPECT_FALSE(warned.fix.empty());
  DoctorCheck failed = JudgeRuntime(NoControllers(), /*podman=*/false, FourGigabytes(), true);
  EXPECT_EQ(failed.status, CheckStatus::kFail);
  EXPECT_NE(failed.fix.find("limits.require: false"), std::string::npos) << failed.fix;
}

TEST(JudgeUserNamespace, RootAndARootfulEngineNeedNoMapping) {
  RootlessHost bare;
  bare.user = "dev";
  EXPECT_EQ(JudgeUserNamespace(0, bare, true).status, CheckStatus::kOk);
  EXPECT_EQ(JudgeUserNamespace(1000, bare, false).status, CheckStatus::kOk);
}

TEST(JudgeUserNamespace, ARootlessEngineNeedsRangesAndNewuidmap) {
  EXPECT_EQ(JudgeUserNamespace(1000, ReadyHost(), true).status, CheckStatus::kOk);
  RootlessHost no_ranges = ReadyHost();
  no_ranges.subgids.clear();
  DoctorCheck ranges = JudgeUserNamespace(1000, no_ranges, true);
  EXPECT_EQ(ranges.status, CheckStatus::kFail);
  EXPECT_NE(ranges.fix.find("usermod --add-subuids"), std::string::npos) << ranges.fix;
  EXPECT_NE(ranges.fix.find(" dev "), std::string::npos) << ranges.fix;
  RootlessHost no_tool = ReadyHost();
  no_tool.newgidmap = IdMapTool::kMissing;
  EXPECT_EQ(JudgeUserNamespace(1000, no_tool, true).fix, "apt-get install uidmap");
  RootlessHost plain = ReadyHost();
  plain.newuidmap = IdMapTool::kUnprivileged;
  EXPECT_NE(JudgeUserNamespace(1000, plain, true).fix.find("setuid"), std::string::npos);
}

TEST(JudgeSeccomp, ProfileKernelAndEngine) {
  const std::string actions = "kill_process kill_thread trap errno user_notif trace log allow\n";
  DoctorCheck ok = JudgeSeccomp(actions, std::string("40 rules"), true);
  EXPECT_EQ(ok.status, CheckStatus::kOk);
  EXPECT_NE(ok.detail.find("40 rules"), std::string::npos);
  EXPECT_EQ(ok.detail.find('\n'), std::string::npos) << "one line";
  EXPECT_EQ(JudgeSeccomp(actions, std::string("40 rules"), false).status, CheckStatus::kFail);
  DoctorCheck broken = JudgeSeccomp(actions, Error("unknown system call 'nope'"), std::nullopt);
  EXPECT_EQ(broken.status, CheckStatus::kFail);
  EXPECT_NE(broken.detail.find("nope"), std::string::npos);
  EXPECT_EQ(JudgeSeccomp("kill_process allow", std::string("1 rule"), std::nullopt).status,
            CheckStatus::kFail)
      << "the box's profile refuses with errno";
  EXPECT_EQ(JudgeSeccomp("", std::string("1 rule"), std::nullopt).status, CheckStatus::kOk)
      << "unreadable actions leave it to the engine";
}

TEST(CheckSessionFolder, BindsASocketAndLeavesNothingBehind) {
  TempTree tree;
  std::string run = tree.root() + "/run";
  DoctorCheck check = CheckSessionFolder(run);
  EXPECT_EQ(check.status, CheckStatus::kOk) << check.detail;
  struct stat st {};
  ASSERT_EQ(::stat(run.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(std::filesystem::is_empty(run + "/sessions"));
}

TEST(CheckSessionFolder, AFolderTooLongForASessionsSocketsFails) {
  std::string deep = "/tmp/" + std::string(MaxSocketPath(), 'x');
  ASSERT_GT(LongestSessionSocket(deep), MaxSocketPath());
  DoctorCheck check = CheckSessionFolder(deep);
  EXPECT_EQ(check.status, CheckStatus::kFail);
  EXPECT_NE(check.fix.find("XDG_RUNTIME_DIR"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(deep));
}

TEST(CheckShim, MissingNamedOrNotRunningFailsWithAFix) {
  TempTree tree;
  DoctorCheck named = CheckShim("", tree.root() + "/gone");
  EXPECT_EQ(named.status, CheckStatus::kFail);
  EXPECT_NE(named.detail.find("CORRAL_SHIM names " + tree.root() + "/gone"), std::string::npos);
  EXPECT_EQ(CheckShim("", "").status, CheckStatus::kFail);
  std::string usage = tree.File("usage", "#!/bin/sh\nexit 2\n");
  std::string wrong = tree.File("wrong", "#!/bin/sh\nexit 0\n");
  ::chmod(usage.c_str(), 0755);
  ::chmod(wrong.c_str(), 0755);
  EXPECT_EQ(CheckShim(usage, "").status, CheckStatus::kOk);
  DoctorCheck not_shim = CheckShim(wrong, "");
  EXPECT_EQ(not_shim.status, CheckStatus::kFail);
  EXPECT_NE(not_shim.detail.find("exit 0"), std::string::npos) << not_shim.detail;
}

TEST(CheckShell, WantsAnExecutableProgramForThisMachine) {
  TempTree tree;
  std::string script = tree.File("corral-shell", "#!/bin/sh\n");
  ::chmod(script.c_str(), 0755);
  EXPECT_EQ(CheckShell(script, "/x/corral-shim").status, CheckStatus::kFail);
  EXPECT_EQ(CheckShell("", "/x/corral-shim").status, CheckStatus::kFail);
  EXPECT_EQ(CheckShell("/proc/self/exe", "/x/corral-shim").status, CheckStatus::kOk);
}

TEST(CheckCaBundle, CountsCertificates) {
  TempTree tree;
  EXPECT_EQ(CheckCaBundle("").status, CheckStatus::kWarn);
  EXPECT_EQ(CheckCaBundle(tree.File("empty.crt")).status, CheckStatus::kFail);
  std::string two = tree.File("two.crt",
                              "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n"
                              "-----BEGIN CERTIFICATE-----\ny\n-----END CERTIFICATE-----\n");
  DoctorCheck check = CheckCaBundle(two);
  EXPECT_EQ(check.status, CheckStatus::kOk);
  EXPECT_EQ(check.detail, two + " (2 certificates)");
}

TEST(DoctorReport, ALineEachFixesBelowAndTheVerdict) {
  std::vector<DoctorCheck> checks = {
      {"engine", CheckStatus::kOk, "podman 4.3.1", ""},
      {"image", CheckStatus::kWarn, "not built", "apt-get install mmdebstrap"},
  };
  EXPECT_TRUE(SessionCanStart(checks));
  EXPECT_EQ(DoctorText(checks),
            "ok    engine: podman 4.3.1\n"
            "warn  image: not built\n"
            "      fix: apt-get install mmdebstrap\n"
            "A boxed session can start here.\n");
  checks.push_back({"config", CheckStatus::kFail, "bad", "edit it"});
  EXPECT_FALSE(SessionCanStart(checks));
  EXPECT_NE(DoctorText(checks).find("cannot start here: 1 check failed"), std::string::npos);
  nlohmann::json json = DoctorJson(checks);
  EXPECT_EQ(json["ok"], false);
  ASSERT_EQ(json["checks"].size(), 3u);
  EXPECT_EQ(json["checks"][2],
            (nlohmann::json{
                {"name", "config"}, {"status", "fail"}, {"detail", "bad"}, {"fix", "edit it"}}));
}

}  // namespace
}  // namespace corral::launcher
