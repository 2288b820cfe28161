#include "base/report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace corral::report {
namespace {

struct KeptLines : Sink {
  std::vector<std::string> lines, progress;
  std::string output;
  void Line(std::string_view line) override { lines.emplace_back(line); }
  void Progress(std::string_view line) override { progress.emplace_back(line); }
  void Output(std::string_view text) override { output.append(text); }
  bool terminal() const override { return true; }
  int width() const override { return 42; }
};

TEST(Report, ReachesTheInstalledSinkAndNothingWithoutOne) {
  KeptLines kept;
  SetSink(&kept);
  Line("corral: built x in 1.0 s");
  Progress("[##  ] 1/2");
  Output("answer\n");
  EXPECT_TRUE(Terminal());
  EXPECT_EQ(Width(), 42);
  SetSink(nullptr);
  Line("dropped");
  Output("dropped");
  EXPECT_FALSE(Terminal());
  EXPECT_EQ(kept.lines, std::vector<std::string>{"corral: built x in 1.0 s"});
  EXPECT_EQ(kept.progress, std::vector<std::string>{"[##  ] 1/2"});
  EXPECT_EQ(kept.output, "answer\n");
}

}  // namespace
}  // namespace corral::report
