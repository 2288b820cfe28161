#include <gtest/gtest.h>
#include <unistd.h>

#include "launcher/hold/hold.h"
#include "launcher/session/session.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

std::string Started(const std::string& id, const std::string& endpoint, int pid,
                    const std::string& pid_start) {
  nlohmann::json event = {{"event", "session_started"},
                          {"session", id},
                          {"engine", "docker 20.10.24"},
                          {"endpoint", endpoint},
                          {"project", "/p"},
                          {"agent", "claude"},
                          {"pid", pid},
                          {"pid_start", pid_start}};
  return event.dump() + "\n";
}

const char* kEnded = R"({"event":"session_ended","session":"x","exit_status":0})"
                     "\n";

TEST(RecordedSessions, StartAndEndAreReadFromTheRecord) {
  std::string head = R"({"event":"held","folder":"/p"})"
                     "\n" +
                     Started("3f2a00000001", "unix:///run/x.sock", 42, "77") +
                     R"({"event":"command","command":"echo \"event\":\"session_ended\""})"
                     "\n";
  auto session = RecordedSessionFrom(head, head);
  ASSERT_TRUE(session);
  EXPECT_EQ(session->id, "3f2a00000001");
  EXPECT_EQ(session->endpoint, "unix:///run/x.sock");
  EXPECT_EQ(session->pid, 42);
  EXPECT_EQ(session->pid_start, "77");
  EXPECT_FALSE(session->ended) << "a command's text cannot end the session";
  EXPECT_TRUE(RecordedSessionFrom(head, kEnded)->ended);
  EXPECT_FALSE(RecordedSessionFrom(R"({"event":"command"})", ""));
}

TEST(RecordedSessions, OnlySessionsWhoseCorralRunsAreRunning) {
  testing::TempTree tree;
  const int me = static_cast<int>(::getpid());
  const std::string start = ProcessStart(me);
  tree.File("sessions/aaaaaaaaaaaa.jsonl", Started("aaaaaaaaaaaa", "unix:///a.sock", me, start));
  tree.File("sessions/bbbbbbbbbbbb.jsonl",
            Started("bbbbbbbbbbbb", "unix:///b.sock", me, start) + kEnded);
  // The pid is this process's, but the start time is not: another process had it.
  tree.File("sessions/cccccccccccc.jsonl", Started("cccccccccccc", "unix:///c.sock", me, "1"));
  tree.File("sessions/dddddddddddd.jsonl", Started("dddddddddddd", "", me, start));  // unboxed
  // A record longer than the part read from its start: its end is still found.
  tree.File("sessions/eeeeeeeeeeee.jsonl", Started("eeeeeeeeeeee", "unix:///e.sock", me, start) +
                                               std::string(200 * 1024, '\n') + kEnded);
  auto running = RunningRecordedSessions(tree.root());
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].id, "aaaaaaaaaaaa");
  EXPECT_EQ(running[0].endpoint, "unix:///a.sock");
}

TEST(RecordedSessions, ASessionIsFoundByItsIdOrFirstDigits) {
  testing::TempTree tree;
  tree.File("sessions/3f2a00000001.jsonl", Started("3f2a00000001", "unix:///a.sock", 1, "1"));
  tree.File("sessions/3f2b00000002.jsonl", Started("3f2b00000002", "unix:///b.sock", 1, "1"));
  EXPECT_EQ(RecordedSessionFor(tree.root(), "3f2a00000001")->endpoint, "unix:///a.sock");
  EXPECT_EQ(RecordedSessionFor(tree.root(), "3f2b00")->endpoint, "unix:///b.sock");
  EXPECT_FALSE(RecordedSessionFor(tree.root(), "3f2"));    // too short
  EXPECT_FALSE(RecordedSessionFor(tree.root(), "3f2a0"));  // too short
  EXPECT_EQ(RecordedSessionFor(tree.root(), "corral-my-proj-3f2a00000001")->endpoint,
            "unix:///a.sock");  // the box's name
  EXPECT_FALSE(RecordedSessionFor(tree.root(), "corral-my-proj-3f2a"));
  tree.File("sessions/3f2b00000003.jsonl", Started("3f2b00000003", "unix:///c.sock", 1, "1"));
  EXPECT_FALSE(RecordedSessionFor(tree.root(), "3f2b00")) << "two sessions start so";
}

}  // namespace
}  // namespace corral::launcher
