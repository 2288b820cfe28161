// A system-call-heavy loop (getpid, then one byte written to and read back
// from a pipe) with no filter, under the box's filter and under the engine
// default's (Podman's profile read through the same model, compiled the same
// way), each in a forked child. Each run measures the three back to back, in
// a rotating order, so a busy machine slows all three alike; the ratio is the
// median of the runs' own ratios. Usage: seccomp_bench [ITERATIONS] [RUNS] [ENGINE_JSON]
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "seccomp/seccomp.h"

namespace {

using corral::seccomp::Profile;

double LoopNanosPerIteration(long iterations) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  char byte = 'x';
  auto once = [&] {
    ::syscall(SYS_getpid);  // not the libc wrapper: never cached
    if (::write(fds[1], &byte, 1) != 1 || ::read(fds[0], &byte, 1) != 1) std::abort();
  };
  for (long i = 0; i < iterations / 10; ++i) once();  // warm up
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < iterations; ++i) once();
  auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::nano>(elapsed).count() / iterations;
}

// The loop in a child, under `filter` if any; -1 when something failed.
double RunOnce(const Profile* filter, long iterations) {
  int out[2];
  if (::pipe(out) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    double result = -1;
    if (filter == nullptr || corral::seccomp::LoadIntoCurrentThread(*filter)) {
      result = LoopNanosPerIteration(iterations);
    }
    ssize_t ignored = ::write(out[1], &result, sizeof result);
    (void)ignored;
    ::_exit(0);
  }
  ::close(out[1]);
  double result = -1;
  if (::read(out[0], &result, sizeof result) != sizeof result) result = -1;
  ::close(out[0]);
  ::waitpid(pid, nullptr, 0);
  return result;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string Size(const Profile& profile) {
  auto size = corral::seccomp::CompiledSize(profile);
  return size ? std::to_string(size->instructions) + " BPF instructions" : size.error().message;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = argc > 1 ? std::atol(argv[1]) : 50000;
  int runs = argc > 2 ? std::atoi(argv[2]) : 15;
  std::string engine_path = argc > 3 ? argv[3] : "/usr/share/containers/seccomp.json";
  if (iterations <= 0 || runs <= 0) {
    std::fprintf(stderr, "usage: seccomp_bench [ITERATIONS>0] [RUNS>0] [ENGINE_JSON]\n");
    return 2;
  }
  auto box = corral::seccomp::BuildProfile({});
  auto engine = corral::seccomp::ReadProfileFile(engine_path);
  if (!box || !engine) {
    std::fprintf(stderr, "seccomp_bench: %s\n",
                 (!box ? box.error() : engine.error()).message.c_str());
    return 2;
  }
  const Profile* filters[] = {nullptr, &*box, &*engine};
  std::vector<double> times[3];
  std::vector<double> ratios;
  for (int run = 0; run < runs; ++run) {
    for (int k = 0; k < 3; ++k) {
      int which = (run + k) % 3;  // rotate the order from run to run
      double t = RunOnce(filters[which], iterations);
      if (t < 0) {
        std::fprintf(stderr, "seccomp_bench: a child could not load its filter or run\n");
        return 1;
      }
      times[which].push_back(t);
    }
    ratios.push_back(times[1].back() / times[2].back());
  }
  double none = Median(times[0]), ours = Median(times[1]), theirs = Median(times[2]);
  std::printf("seccomp bench: %ld iterations of getpid + pipe write + pipe read, %d runs each\n",
              iterations, runs);
  std::printf("  no filter:       %7.1f ns/iteration (median)\n", none);
  std::printf("  box profile:     %7.1f ns/iteration (%s)\n", ours, Size(*box).c_str());
  std::printf("  engine default:  %7.1f ns/iteration (%s; %s)\n", theirs, Size(*engine).c_str(),
              engine_path.c_str());
  auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
  std::printf("  ratio box/engine: %.3f (median of runs; range %.3f..%.3f; target <= 1.0)\n",
              Median(ratios), *low, *high);
  if (theirs > none) {
    std::printf("  filter overhead box/engine: %.3f\n", (ours - none) / (theirs - none));
  }
  return 0;
}
