// The deny-list matcher over a corpus of realistic agent command lines.
//
//   matcher_bench [google-benchmark flags]     Google Benchmark runs
//   matcher_bench --report [CORPUS]            per-command figures as JSON
//   matcher_bench --stream LINES [RUNS]        one pass over LINES, as JSON
//
// --report times each command on its own (a batch of repetitions, divided;
// thread CPU time) and prints the median, p90, max and mean per command,
// plus the time to decide a 1 MiB command line (CPU and wall).
// --stream checks each line of LINES once, in order, as `corral check --batch`
// does, and prints the median over RUNS passes of CPU time per line: the
// matcher's share of the whole-process figure (bench/matcher --process).
#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "policy/matcher/matcher.h"

namespace {

using corral::policy::Matcher;

std::vector<std::string> LoadCorpus(const std::string& path) {
  std::vector<std::string> commands;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      commands.push_back(nlohmann::json::parse(line).at("command").get<std::string>());
    } catch (const nlohmann::json::exception&) {
      std::fprintf(stderr, "matcher_bench: skipping a malformed corpus line\n");
    }
  }
  return commands;
}

std::string OneMebibyteCommand() {
  std::string command;
  while (command.size() < 1024 * 1024) {
    command += "grep -rn \"$(git rev-parse HEAD)\" src/ | awk '{print $1}' | sort -u && ";
  }
  return command + "echo done";
}

const Matcher& DefaultMatcher() {
  static const Matcher matcher =
      std::move(Matcher::Create(corral::policy::DefaultDenyList()).value());
  return matcher;
}

const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> corpus = LoadCorpus(CORRAL_BENCH_CORPUS);
  return corpus;
}

void BM_Corpus(benchmark::State& state) {
  const Matcher& matcher = DefaultMatcher();
  const auto& corpus = Corpus();
  for (auto _ : state) {
    for (const std::string& command : corpus) benchmark::DoNotOptimize(matcher.Check(command));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * corpus.size()));
}
BENCHMARK(BM_Corpus)->Unit(benchmark::kMicrosecond);

void BM_OneMebibyte(benchmark::State& state) {
  const Matcher& matcher = DefaultMatcher();
  std::string command = OneMebibyteCommand();
  for (auto _ : state) benchmark::DoNotOptimize(matcher.Check(command));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * command.size()));
}
BENCHMARK(BM_OneMebibyte)->Unit(benchmark::kMillisecond);

// CPU time of this thread, in microseconds: unlike wall time it does not
// count the time other processes on a busy machine take.
double ThreadCpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  std::size_t index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

int Report(const std::string& path) {
  using Clock = std::chrono::steady_clock;
  const Matcher& matcher = DefaultMatcher();
  std::vector<std::string> corpus = LoadCorpus(path);
  if (corpus.empty()) {
    std::fprintf(stderr, "matcher_bench: no commands in %s\n", path.c_str());
    return 1;
  }
  constexpr int kRepeat = 200;
  std::vector<double> per_command_us;
  for (const std::string& command : corpus) {
    for (int i = 0; i < 20; ++i) benchmark::DoNotOptimize(matcher.Check(command));  // warm
    double start = ThreadCpuMicros();
    for (int i = 0; i < kRepeat; ++i) benchmark::DoNotOptimize(matcher.Check(command));
    per_command_us.push_back((ThreadCpuMicros() - start) / kRepeat);
  }
  double mean = 0;
  for (double v : per_command_us) mean += v;
  mean /= static_cast<double>(per_command_us.size());
  std::string big = OneMebibyteCommand();
  std::vector<double> big_ms;
  std::vector<double> big_wall_ms;
  for (int i = 0; i < 5; ++i) {
    auto wall = Clock::now();
    double start = ThreadCpuMicros();
    benchmark::DoNotOptimize(matcher.Check(big));
    big_ms.push_back((ThreadCpuMicros() - start) / 1e3);
    big_wall_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - wall).count());
  }
  nlohmann::json out = {
      {"commands", corpus.size()},
      {"median_us", Percentile(per_command_us, 0.5)},
      {"p90_us", Percentile(per_command_us, 0.9)},
      {"max_us", Percentile(per_command_us, 1.0)},
      {"mean_us", mean},
      {"one_mib_bytes", big.size()},
      {"one_mib_ms", Percentile(big_ms, 0.5)},
      {"one_mib_wall_ms", Percentile(big_wall_ms, 0.5)},
  };
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

int Stream(const std::string& path, int runs) {
  const Matcher& matcher = DefaultMatcher();
  std::vector<std::string> lines = LoadCorpus(path);
  if (lines.empty()) {
    std::fprintf(stderr, "matcher_bench: no commands in %s\n", path.c_str());
    return 1;
  }
  std::vector<double> per_line_us;
  for (int run = 0; run < runs; ++run) {
    double start = ThreadCpuMicros();
    for (const std::string& command : lines) benchmark::DoNotOptimize(matcher.Check(command));
    per_line_us.push_back((ThreadCpuMicros() - start) / static_cast<double>(lines.size()));
  }
  nlohmann::json out = {
      {"lines", lines.size()}, {"runs", runs}, {"median_us", Percentile(per_line_us, 0.5)}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--report") == 0) {
    return Report(argc >= 3 ? argv[2] : CORRAL_BENCH_CORPUS);
  }
  if (argc >= 3 && std::strcmp(argv[1], "--stream") == 0) {
    return Stream(argv[2], argc >= 4 ? std::atoi(argv[3]) : 5);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
