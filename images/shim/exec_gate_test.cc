#include "images/shim/exec_gate.h"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "images/shim/exec_filter.h"

namespace corral::shim {
namespace {

namespace fs = std::filesystem;

struct stat At(dev_t dev, ino_t ino) {
  struct stat st {};
  st.st_dev = dev;
  st.st_ino = ino;
  return st;
}

TEST(GateFor, OnlyTheGateFileAtACoveredPathInTheAgentsNamespace) {
  std::vector<GatedProgram> programs;
  programs.push_back({"aws", "/usr/local/aws-cli/aws", At(1, 10), UniqueFd()});
  programs.push_back({"kubectl", "/usr/bin/kubectl", At(1, 11), UniqueFd()});
  struct stat gate = At(2, 99);
  EXPECT_EQ(GateFor(programs, "/usr/bin/kubectl", gate, gate, 7, 7), &programs[1]);
  EXPECT_EQ(GateFor(programs, "/usr/local/aws-cli/aws", gate, gate, 7, 7), &programs[0]);
  EXPECT_EQ(GateFor(programs, "/tmp/kubectl", gate, gate, 7, 7), nullptr) << "a copy of the gate";
  EXPECT_EQ(GateFor(programs, "/usr/bin/kubectl", At(1, 11), gate, 7, 7), nullptr)
      << "not the gate file";
  EXPECT_EQ(GateFor(programs, "/usr/bin/kubectl", gate, gate, 8, 7), nullptr)
      << "another mount namespace";
}

TEST(IsGate, AnyNameButTheShimsOwn) {
  EXPECT_FALSE(IsGate("/run/corral/bin/corral-shim"));
  EXPECT_FALSE(IsGate("/build/images/corral-shim"));
  EXPECT_TRUE(IsGate("/usr/bin/kubectl"));
  EXPECT_TRUE(IsGate("/tmp/corral-shim-copy"));
}

// Find keeps compiled programs on the search path, one per file, and never
// a script, an interpreter or a relative folder.
TEST(ExecGate, FindsCompiledListedProgramsOnly) {
  fs::path dir = fs::temp_directory_path() / ("gate-find-" + std::to_string(::getpid()));
  fs::create_directories(dir / "bin");
  fs::create_directories(dir / "lib");
  fs::copy_file("/bin/true", dir / "lib" / "kubectl-1.29");
  fs::create_symlink(dir / "lib" / "kubectl-1.29", dir / "bin" / "kubectl");
  fs::create_symlink(dir / "lib" / "kubectl-1.29", dir / "bin" / "k");  // same file, two names
  { std::ofstream(dir / "bin" / "aws") << "#!/usr/bin/python3\nimport awscli\n"; }
  fs::permissions(dir / "bin" / "aws", fs::perms::owner_all);
  fs::copy_file("/bin/true", dir / "lib" / "busybox");
  fs::create_symlink(dir / "lib" / "busybox", dir / "bin" / "psql");
  std::string path = "relative:" + (dir / "bin").string();
  ExecGate gate = ExecGate::Find({"kubectl", "k", "aws", "psql", "terraform"}, path, {"busybox"});
  ASSERT_EQ(gate.programs().size(), 1u);
  EXPECT_EQ(gate.programs()[0].path, (dir / "lib" / "kubectl-1.29").string());
  EXPECT_TRUE(gate.programs()[0].file.valid());
  fs::remove_all(dir);
}

// On the real kernel, as root: a child covers a copy of /bin/echo with
// this program in a mount namespace of its own; this one keeps the real
// file (tests/session/exec_check_e2e.py runs the whole gate in boxes).
TEST(ExecGate, CoversInAMountNamespaceOfItsOwn) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  fs::path dir = fs::temp_directory_path() / ("gate-cover-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file("/bin/echo", dir / "listed-echo");
  ExecGate gate = ExecGate::Find({"listed-echo"}, dir.string(), {});
  ASSERT_EQ(gate.programs().size(), 1u);
  int ready[2];
  ASSERT_EQ(::pipe2(ready, O_CLOEXEC), 0);
  pid_t child = ::fork();
  if (child == 0) {
    std::string why = gate.Cover();
    char ok = why.empty() ? 'y' : 'n';
    if (::write(ready[1], &ok, 1) != 1) _exit(3);
    if (!why.empty()) {
      std::fprintf(stderr, "cover: %s\n", why.c_str());
      _exit(4);
    }
    // Reading the covered path gives the gate's bytes, not echo's.
    struct stat covered {}, self {};
    ::stat((dir / "listed-echo").c_str(), &covered);
    ::stat("/proc/self/exe", &self);
    _exit(covered.st_ino == self.st_ino ? 0 : 5);
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_EQ(ok, 'y');
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  struct stat outside {};
  ASSERT_EQ(::stat((dir / "listed-echo").c_str(), &outside), 0);
  EXPECT_EQ(outside.st_ino, gate.programs()[0].st.st_ino) << "this namespace keeps the real file";
  ::close(ready[0]);
  ::close(ready[1]);
  fs::remove_all(dir);
}

// The agent's filter refuses the mount family, whatever its capabilities.
TEST(ExecFilter, RefusesTheMountFamily) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (the control mounts)";
  pid_t child = ::fork();
  if (child == 0) {
    if (::unshare(CLONE_NEWNS) != 0) _exit(10);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) _exit(11);
    if (::mount("none", "/mnt", "tmpfs", 0, nullptr) != 0) _exit(12);  // control: root may
    if (::umount2("/mnt", 0) != 0) _exit(13);
    int listener = InstallExecFilter();
    if (listener < 0) _exit(14);
    if (::mount("none", "/mnt", "tmpfs", 0, nullptr) == 0 || errno != EPERM) _exit(15);
    if (::umount2("/", MNT_DETACH) == 0 || errno != EPERM) _exit(16);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace corral::shim
