// The oracle's cost, in one run (bench/oracle):
//   round trip   one client, one request per connection, as the shim asks:
//                p50 and p99 over 20,000 requests (target p99 < 200 µs);
//   throughput   8 concurrent clients, 100,000 decisions, each answer checked
//                against the expected one (target: no errors);
//   shell front  `bash -c true` through corral-shell (as `bash`, asking this
//                oracle) against bare `bash -c true`, interleaved, medians
//                (target: overhead < 10%); next to them, as the floor for
//                any exec-based front, EXEC_ONLY (a static program that only
//                execs bash) under the name bash; and, as the floor for any
//                front that asks first, ASK_THEN_EXEC (beside EXEC_ONLY: one
//                line to a socket and one back, then the exec) against a
//                one-thread server that answers every line at once;
//   refused      `bash -c 'aws s3 ls'` through corral-shell, refused by the
//                oracle (nobody watching): the front never starts bash.
// Usage: oracle_bench SHELL EXEC_ONLY [RUNS]
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "policy/oracle/oracle.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Query {
  std::string command;
  bool allowed;
};

const std::vector<Query>& Queries() {
  static const std::vector<Query> queries = {
      {"true", true},
      {"npm test -- --watch=false", true},
      {"git status && git diff --stat", true},
      {"aws s3 ls s3://bucket", false},
      {"make -j4 build 2>&1 | tee build.log", true},
      {"git push --force origin main", false},
      {"FOO=1 env kubectl get pods", false},
      {"for f in *.c; do gcc -c \"$f\"; done", true},
  };
  return queries;
}

// One request on a fresh connection, as the shim sends it; the decision.
int Ask(const std::string& socket_path, const std::string& command) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  std::string request =
      nlohmann::json{{"v", 1}, {"shell", "bash"}, {"command", command}, {"cwd", "/work"}}.dump() +
      "\n";
  if (::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return -1;
  }
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) {
    reply.append(buffer, static_cast<std::size_t>(n));
    if (reply.find('\n') != std::string::npos) break;
  }
  ::close(fd);
  if (reply.find("\"allow\"") != std::string::npos) return 1;
  if (reply.find("\"deny\"") != std::string::npos) return 0;
  return -1;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * (v.size() - 1))];
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / v.size();
}

struct Cost {
  double wall_us = 0;
  double cpu_us = 0;  // the child's user+system time, plus this process's (the oracle's)
  double oracle_us = 0;  // this process's part of cpu_us
  double workers_us = 0;  // of it, the oracle's worker threads (not the spawning)
};

double CpuUs(const rusage& r) {
  return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + r.ru_utime.tv_usec + r.ru_stime.tv_usec;
}

// CPU time of this process's threads other than the calling one (the
// oracle's workers), from /proc/self/task/*/schedstat (nanoseconds).
double OtherThreadsCpuUs() {
  std::string self = std::to_string(::gettid());
  double total_ns = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    if (task.path().filename() == self) continue;
    std::ifstream in(task.path() / "schedstat");
    double ns = 0;
    if (in >> ns) total_ns += ns;
  }
  return total_ns / 1000;
}

Cost RunOnce(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             int expected_status = 0) {
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  rusage self_before{}, self_after{}, child{};
  double workers_before = OtherThreadsCpuUs();
  ::getrusage(RUSAGE_SELF, &self_before);
  auto start = Clock::now();
  // posix_spawn (vfork-like) rather than fork: after a fork, every page this
  // process writes is a copy-on-write fault until the child execs, and the
  // oracle's threads live here, which would bill the oracle for the fork.
  // In a session the oracle is in corral, not in the agent that spawns shells.
  pid_t pid = -1;
  if (::posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), envp.data()) != 0) {
    std::fprintf(stderr, "oracle_bench: cannot start %s\n", argv[0].c_str());
    std::exit(1);
  }
  int status = 0;
  ::wait4(pid, &status, 0, &child);
  Cost cost;
  cost.wall_us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  ::getrusage(RUSAGE_SELF, &self_after);
  cost.oracle_us = CpuUs(self_after) - CpuUs(self_before);
  cost.workers_us = OtherThreadsCpuUs() - workers_before;
  cost.cpu_us = CpuUs(child) + cost.oracle_us;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != expected_status) {
    std::fprintf(stderr, "oracle_bench: %s failed (status %d)\n", argv[0].c_str(), status);
    std::exit(1);
  }
  return cost;
}

// The least a host can do per question: accept, read one line, answer it.
class FloorServer {
 public:
  explicit FloorServer(const std::string& path) {
    listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener_, 64) != 0) {
      std::perror("oracle_bench: the floor's server");
      std::exit(1);
    }
    thread_ = std::thread([this] { Serve(); });
  }
  ~FloorServer() {
    ::shutdown(listener_, SHUT_RDWR);  // accept returns
    thread_.join();
    ::close(listener_);
  }

 private:
  void Serve() {
    static const char kAnswer[] = "{\"decision\":\"allow\"}\n";
    for (int fd; (fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0; ::close(fd)) {
      char line[4096];
      for (ssize_t n; (n = ::read(fd, line, sizeof line)) > 0;) {
        if (std::memchr(line, '\n', static_cast<std::size_t>(n))) break;
      }
      if (::write(fd, kAnswer, sizeof kAnswer - 1) < 0) continue;
    }
  }
  int listener_ = -1;
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: oracle_bench SHELL EXEC_ONLY [RUNS]\n");
    return 2;
  }
  std::string shell = std::filesystem::absolute(argv[1]).string();
  std::string exec_only = std::filesystem::absolute(argv[2]).string();
  std::string ask_then_exec =
      (std::filesystem::absolute(argv[2]).parent_path() / "ask_then_exec").string();
  int runs = argc > 3 ? std::atoi(argv[3]) : 400;
  char pattern[] = "/tmp/corral-oracle-bench-XXXXXX";
  std::string dir = ::mkdtemp(pattern);
  std::ofstream(dir + "/config.yaml") << "presence:\n  sources: []\n";  // nobody watching

  corral::policy::OracleOptions options;
  options.socket_path = dir + "/oracle.sock";
  options.policy_source.config_path = dir + "/config.yaml";
  options.deny_list_copy = dir + "/deny-list";
  if (const char* workers = std::getenv("ORACLE_BENCH_WORKERS")) options.workers = std::atoi(workers);
  options.watching = [] { return false; };
  auto oracle = corral::policy::Oracle::Start(options);
  if (!oracle) {
    std::fprintf(stderr, "oracle_bench: %s\n", oracle.error().message.c_str());
    return 1;
  }

  // ORACLE_BENCH_SERVE=SECONDS: only serve that long, for profiling a shell
  // front by hand (perf, strace) against this oracle.
  if (const char* serve = std::getenv("ORACLE_BENCH_SERVE")) {
    std::printf("CORRAL_ORACLE_SOCKET=%s\n", options.socket_path.c_str());
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(std::atoi(serve)));
    (*oracle)->Stop();
    std::filesystem::remove_all(dir);
    return 0;
  }

  // ORACLE_BENCH_SHELL_ONLY=1: only the shell front (quicker A/B runs).
  const bool shell_only = std::getenv("ORACLE_BENCH_SHELL_ONLY") != nullptr;

  // Round trip.
  std::vector<double> rtt;
  for (int i = 0; i < (shell_only ? 0 : 20000); ++i) {
    const Query& q = Queries()[i % Queries().size()];
    auto start = Clock::now();
    int got = Ask(options.socket_path, q.command);
    rtt.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (got != (q.allowed ? 1 : 0)) {
      std::fprintf(stderr, "oracle_bench: wrong answer for %s\n", q.command.c_str());
      return 1;
    }
  }

  // Throughput, 8 clients.
  const int kClients = 8, kTotal = shell_only ? 0 : 100000;
  std::atomic<int> errors{0};
  auto start = Clock::now();
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = c; i < kTotal; i += kClients) {
        const Query& q = Queries()[i % Queries().size()];
        if (Ask(options.socket_path, q.command) != (q.allowed ? 1 : 0)) ++errors;
      }
    });
  }
  for (auto& t : clients) t.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // corral-shell in front of bash, and one bare extra exec, against bare bash.
  std::filesystem::create_directories(dir + "/bin");
  std::filesystem::create_directories(dir + "/floor");
  std::filesystem::create_directories(dir + "/ask");
  std::filesystem::create_symlink(shell, dir + "/bin/bash");
  std::filesystem::create_symlink(exec_only, dir + "/floor/bash");
  std::filesystem::create_symlink(ask_then_exec, dir + "/ask/bash");
  FloorServer floor_server(dir + "/floor.sock");
  std::vector<std::string> env = {"PATH=/usr/bin:/bin",
                                  "CORRAL_ORACLE_SOCKET=" + options.socket_path,
                                  "CORRAL_DENY_LIST_FILE=" + options.deny_list_copy,
                                  "CORRAL_FLOOR_SOCKET=" + dir + "/floor.sock"};
  const std::vector<std::string> programs = {"/bin/bash", dir + "/bin/bash", dir + "/floor/bash",
                                             dir + "/ask/bash"};
  std::vector<std::vector<double>> wall(programs.size()), cpu(programs.size()),
      oracle_cpu(programs.size()), workers_cpu(programs.size());
  for (int i = 0; i < 20; ++i) {
    for (const auto& program : programs) RunOnce({program, "-c", "true"}, env);  // warm up
  }
  for (int i = 0; i < runs; ++i) {
    for (std::size_t p = 0; p < programs.size(); ++p) {
      Cost cost = RunOnce({programs[p], "-c", "true"}, env);
      wall[p].push_back(cost.wall_us);
      cpu[p].push_back(cost.cpu_us);
      oracle_cpu[p].push_back(cost.oracle_us);
      workers_cpu[p].push_back(cost.workers_us);
    }
  }
  // A listed command refused through the front: it never starts bash. The
  // front writes the oracle's message on stderr, which goes with the run's.
  std::vector<double> refused_wall, refused_cpu;
  const int kRefusedStatus = 1;
  std::vector<std::string> refused_argv = {dir + "/bin/bash", "-c", "aws s3 ls"};
  int saved_stderr = ::dup(STDERR_FILENO);
  int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ::dup2(null_fd, STDERR_FILENO);
  for (int i = 0; i < runs; ++i) {
    Cost cost = RunOnce(refused_argv, env, kRefusedStatus);
    refused_wall.push_back(cost.wall_us);
    refused_cpu.push_back(cost.cpu_us);
  }
  ::dup2(saved_stderr, STDERR_FILENO);
  ::close(saved_stderr);
  ::close(null_fd);
  (*oracle)->Stop();
  std::filesystem::remove_all(dir);

  if (!shell_only) {
    std::printf("oracle round trip (1 client, 20000 requests, connect+ask+answer)\n");
    std::printf("  p50 %.1f us   p99 %.1f us   (target p99 < 200 us)\n", Percentile(rtt, 0.5),
                Percentile(rtt, 0.99));
    std::printf("oracle throughput (%d clients, %d decisions)\n", kClients, kTotal);
    std::printf("  %.0f decisions/s   errors %d   (target: no errors)\n", kTotal / seconds,
                errors.load());
  }
  std::printf("bash -c true, %d runs each, interleaved, medians (target: overhead < 10%%)\n", runs);
  std::printf("        %12s %24s %32s %30s\n", "bare", "through corral-shell",
              "one extra exec (the floor)", "ask a socket, then exec");
  for (auto [name, times] : {std::pair{"wall", &wall}, std::pair{"cpu ", &cpu}}) {
    double bare = Percentile((*times)[0], 0.5), front = Percentile((*times)[1], 0.5),
           floor = Percentile((*times)[2], 0.5), ask = Percentile((*times)[3], 0.5);
    std::printf("  %s %9.0f us %14.0f us %+7.1f%% %22.0f us %+7.1f%% %20.0f us %+7.1f%%\n",
                name, bare, front, (front / bare - 1) * 100, floor, (floor / bare - 1) * 100,
                ask, (ask / bare - 1) * 100);
  }
  std::printf("  corral-shell over the exec floor: %+.1f points wall; over the asking floor: "
              "%+.1f points\n",
              (Percentile(wall[1], 0.5) - Percentile(wall[2], 0.5)) /
                  Percentile(wall[0], 0.5) * 100,
              (Percentile(wall[1], 0.5) - Percentile(wall[3], 0.5)) /
                  Percentile(wall[0], 0.5) * 100);
  std::printf("  (cpu: the child's time plus this process's, steadier on a busy machine; of it\n"
              "   this process's, mean per run: %.0f us through corral-shell, %.0f us for the\n"
              "   exec floor, %.0f us for the asking floor; its threads but the spawning one\n"
              "   (the oracle's workers, the floor's server): %.1f us, %.1f us, %.1f us)\n",
              Mean(oracle_cpu[1]), Mean(oracle_cpu[2]), Mean(oracle_cpu[3]),
              Mean(workers_cpu[1]), Mean(workers_cpu[2]), Mean(workers_cpu[3]));
  std::printf("bash -c 'aws s3 ls' through corral-shell, refused, %d runs, medians: %.0f us "
              "wall, %.0f us cpu\n",
              runs, Percentile(refused_wall, 0.5), Percentile(refused_cpu, 0.5));
  return errors.load() == 0 ? 0 : 1;
}
