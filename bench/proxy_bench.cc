// Load generator and origins for bench/proxy (corral vs tinyproxy vs squid).
//   proxy_bench origin ECHO_PORT SINK_PORT      echo and discard servers on 127.0.0.1
//   proxy_bench connect-rate PROXY ORIGIN SECS  CONNECT + 1 KiB round trip + close, 64 clients
//   proxy_bench http-rate PROXY URL SECS        keep-alive GETs through the proxy, 64 clients
//   proxy_bench transfer PROXY|direct SINK BYTES  one tunnel (or a direct connection), MB/s
//   proxy_bench idle PROXY ORIGIN N SECS        hold N idle tunnels for SECS
// PROXY and ORIGIN are host:port on 127.0.0.1; prints one number.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int Dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{10, 0};  // a proxy that stops answering fails the round, not the bench
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return fd;
}

bool WriteAll(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadN(int fd, char* p, size_t n) {
  while (n) {
    ssize_t r = read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// Reads a response head; returns Content-Length (0 if none), or -1.
long ReadHead(int fd, std::string& extra) {
  std::string head;
  char buf[4096];
  size_t end;
  while ((end = head.find("\r\n\r\n")) == std::string::npos) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r <= 0) return -1;
    head.append(buf, static_cast<size_t>(r));
  }
  extra = head.substr(end + 4);
  if (head.compare(9, 3, "200") != 0) return -1;
  auto cl = head.find("Content-Length: ");
  if (cl == std::string::npos) cl = head.find("content-length: ");
  return cl == std::string::npos ? 0 : std::atol(head.c_str() + cl + 16);
}

int OpenTunnel(int proxy, const std::string& origin) {
  int fd = Dial(proxy);
  if (fd < 0) return -1;
  std::string req = "CONNECT " + origin + " HTTP/1.1\r\nHost: " + origin + "\r\n\r\n";
  std::string extra;
  if (!WriteAll(fd, req.data(), req.size()) || ReadHead(fd, extra) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void StartThread(void* (*fn)(void*), void* arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  pthread_create(&t, &attr, fn, arg);
}

void* Echo(void* arg) {
  int fd = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  char buf[16384];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) WriteAll(fd, buf, static_cast<size_t>(n));
  close(fd);
  return nullptr;
}

void* Sink(void* arg) {
  int fd = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  // An 8-byte length, then that many bytes, then one byte back: no reliance
  // on half-close, which not every proxy passes through a tunnel.
  std::vector<char> buf(1 << 20);  // heap: origin threads have 64 KiB stacks
  long long want = 0;
  if (!ReadN(fd, reinterpret_cast<char*>(&want), sizeof want)) want = 0;
  for (ssize_t n; want > 0 && (n = read(fd, buf.data(), buf.size())) > 0;) want -= n;
  WriteAll(fd, "k", 1);
  close(fd);
  return nullptr;
}

void Serve(int port, void* (*fn)(void*)) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
  if (bind(l, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0 || listen(l, 4096) != 0) {
    std::perror("origin");
    std::exit(1);
  }
  while (true) {
    int fd = accept(l, nullptr, nullptr);
    if (fd >= 0) StartThread(fn, reinterpret_cast<void*>(static_cast<intptr_t>(fd)));
  }
}

template <class Fn>
double RunClients(int seconds, Fn one_round) {
  std::atomic<long> done{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 64; ++i) {
    threads.emplace_back([&] {
      while (!stop) {
        if (one_round()) ++done;
      }
    });
  }
  auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  stop = true;
  long n = done;
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& t : threads) t.join();
  return static_cast<double>(n) / secs;
}

int Port(const char* hostport) { return std::atoi(std::strrchr(hostport, ':') + 1); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string mode = argv[1];
  if (mode == "origin") {
    std::thread([&] { Serve(std::atoi(argv[3]), Sink); }).detach();
    Serve(std::atoi(argv[2]), Echo);
  }
  if (mode == "connect-rate") {
    int proxy = Port(argv[2]);
    std::string origin = argv[3];
    std::string kib(1024, 'x');
    double rate = RunClients(std::atoi(argv[4]), [&] {
      int fd = OpenTunnel(proxy, origin);
      if (fd < 0) return false;
      char back[1024];
      bool ok = WriteAll(fd, kib.data(), kib.size()) && ReadN(fd, back, sizeof back);
      close(fd);
      return ok;
    });
    std::printf("%.0f\n", rate);
  }
  if (mode == "http-rate") {
    int proxy = Port(argv[2]);
    std::string req = std::string("GET ") + argv[3] + " HTTP/1.1\r\nHost: " +
                      std::string(argv[3]).substr(7, std::string(argv[3]).find('/', 7) - 7) + "\r\n\r\n";
    thread_local int fd = -1;
    double rate = RunClients(std::atoi(argv[4]), [&] {
      if (fd < 0) fd = Dial(proxy);
      std::string extra;
      long length = -1;
      if (fd >= 0 && WriteAll(fd, req.data(), req.size())) length = ReadHead(fd, extra);
      std::vector<char> body(length > 0 ? static_cast<size_t>(length) - std::min<size_t>(extra.size(), length) : 0);
      if (length < 0 || !ReadN(fd, body.data(), body.size())) {
        if (fd >= 0) close(fd);
        fd = -1;
        return false;
      }
      return true;
    });
    std::printf("%.0f\n", rate);
  }
  if (mode == "transfer") {
    long long bytes = std::atoll(argv[4]);
    int fd = std::string(argv[2]) == "direct" ? Dial(Port(argv[3])) : OpenTunnel(Port(argv[2]), argv[3]);
    if (fd < 0) return 1;
    std::vector<char> buf(1 << 20, 'x');
    auto start = Clock::now();
    if (!WriteAll(fd, reinterpret_cast<const char*>(&bytes), sizeof bytes)) return 1;
    for (long long sent = 0; sent < bytes; sent += static_cast<long long>(buf.size())) {
      if (!WriteAll(fd, buf.data(), buf.size())) return 1;
    }
    char k;
    if (read(fd, &k, 1) != 1) return 1;  // the sink got everything
    double secs = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("%.0f\n", static_cast<double>(bytes) / secs / 1e6);
  }
  if (mode == "idle") {
    int proxy = Port(argv[2]);
    int n = std::atoi(argv[4]), ok = 0;
    std::vector<int> fds;
    for (int i = 0; i < n; ++i) {
      int fd = OpenTunnel(proxy, argv[3]);
      if (fd >= 0) fds.push_back(fd), ++ok;
    }
    std::printf("%d\n", ok);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(std::atoi(argv[5])));
  }
  return 0;
}
