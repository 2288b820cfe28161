#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>

#include <string>
#include <thread>

#include "base/base.h"

namespace corral {
namespace {

TEST(WriteAllTest, WritesEveryByteToASlowReader) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  UniqueFd read_end(ends[0]), write_end(ends[1]);
  ::fcntl(write_end.get(), F_SETPIPE_SZ, 4096);  // far smaller than the data
  std::string data(256 * 1024, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 31);
  std::string back;
  std::thread reader([&] {
    char buffer[1000];
    ssize_t n;
    while ((n = ::read(read_end.get(), buffer, sizeof buffer)) > 0) back.append(buffer, n);
  });
  EXPECT_TRUE(WriteAll(write_end.get(), data.data(), data.size()));
  write_end.Reset();
  reader.join();
  EXPECT_TRUE(back == data);
}

TEST(WriteAllTest, FalseWhenTheDescriptorRefuses) {
  int ends[2];
  ASSERT_EQ(::pipe2(ends, O_CLOEXEC), 0);
  UniqueFd read_end(ends[0]), write_end(ends[1]);
  read_end.Reset();
  auto previous = ::signal(SIGPIPE, SIG_IGN);
  EXPECT_FALSE(WriteAll(write_end.get(), "x", 1));  // EPIPE
  ::signal(SIGPIPE, previous);
  EXPECT_FALSE(WriteAll(-1, "x", 1));
  EXPECT_TRUE(WriteAll(write_end.get(), "", 0));  // nothing to write
}

}  // namespace
}  // namespace corral
