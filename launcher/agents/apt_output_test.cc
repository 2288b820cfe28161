#include <gtest/gtest.h>

#include "launcher/agents/agents.h"

namespace corral::launcher {
namespace {

constexpr const char* kAptGetLine =
    "E: apt download failed: E: apt-get --yes -oApt::Get::Download-Only=true install "
    "?narrow(?or(?archive(^bookworm$),?codename(^bookworm$)),?architecture(amd64),?essential) "
    "failed\n";

TEST(ReadAptFailure, AnUnreachableMirrorIsTransientAndSaidInAptsWords) {
  std::string out =
      "I: running apt-get update...\n"
      "Err:1 http://deb.debian.org/debian bookworm/main amd64 libc6 amd64 2.36-9+deb12u4\n"
      "  Could not connect to deb.debian.org:80 (151.101.2.132), connection timed out\n"
      "E: Failed to fetch http://deb.debian.org/debian/pool/main/g/glibc/libc6_2.36_amd64.deb\n"
      "E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?\n" +
      std::string(kAptGetLine);
  AptFailure failure = ReadAptFailure(out);
  EXPECT_TRUE(failure.transient);
  ASSERT_EQ(failure.lines.size(), 5u);
  EXPECT_EQ(failure.lines[1],
            "  Could not connect to deb.debian.org:80 (151.101.2.132), connection timed out");
  // mmdebstrap's own line keeps what failed, not apt-get's command line.
  EXPECT_EQ(failure.lines[4], "E: apt download failed");
}

TEST(ReadAptFailure, ServerErrorsAreTransientNotFoundIsNot) {
  EXPECT_TRUE(ReadAptFailure("Err:2 http://m/debian bookworm/main amd64 a\n"
                             "  503  Service Unavailable [IP: 10.0.0.1 80]\n")
                  .transient);
  AptFailure missing = ReadAptFailure(
      "Err:2 http://m/debian bookworm/main amd64 a\n  404  Not Found [IP: 10.0.0.1 80]\n"
      "E: Failed to fetch http://m/debian/pool/a.deb  404  Not Found [IP: 10.0.0.1 80]\n");
  EXPECT_FALSE(missing.transient);
  EXPECT_EQ(missing.lines.size(), 3u);
}

// What corral's leaked sockets made of it: mmdebstrap's line alone, which
// says nothing of the network; not tried again.
TEST(ReadAptFailure, AFailureThatIsNotTheNetworkIsNotTriedAgain) {
  AptFailure failure = ReadAptFailure(std::string("I: ...\n") + kAptGetLine);
  EXPECT_FALSE(failure.transient);
  EXPECT_EQ(failure.lines, std::vector<std::string>{"E: apt download failed"});
}

TEST(ReadAptFailure, WithoutAptLinesTheLastLinesAreSaid) {
  std::string out;
  for (int i = 1; i <= 8; ++i) out += "line " + std::to_string(i) + "\n";
  out += std::string(500, 'x') + "\n\n";
  AptFailure failure = ReadAptFailure(out);
  ASSERT_EQ(failure.lines.size(), 5u);
  EXPECT_EQ(failure.lines[0], "line 5");
  EXPECT_EQ(failure.lines[4].size(), 240u + 4);  // shortened, " ..." after it
  EXPECT_FALSE(failure.transient);
}

TEST(ReadAptFailure, RepeatedLinesAreSaidOnceAndAtMostADozen) {
  std::string out;
  for (int i = 0; i < 30; ++i) out += "W: the same warning\nE: error " + std::to_string(i) + "\n";
  AptFailure failure = ReadAptFailure(out);
  EXPECT_EQ(failure.lines.size(), 12u);
  EXPECT_EQ(failure.lines[0], "W: the same warning");
  EXPECT_EQ(failure.lines[1], "E: error 0");
  EXPECT_EQ(failure.lines[2], "E: error 1");
}

}  // namespace
}  // namespace corral::launcher
