// corral's half of the oracle channel (docs/network-mode.md): `corral relay`
// runs in the sidecar as an exec whose stdin and stdout are one stream on
// corral's own connection to the engine, so it works through ssh, TLS and
// NAT alike and needs no port on this machine. Each question that comes up
// the stream is asked of this session's oracle, on its socket here, exactly
// as a local shim asks it; the answer goes back down with the question's id.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {
namespace {

// An oracle that has not answered in this time is not waited for: the relay
// closes that question unanswered and the shim's fallback decides.
constexpr int kOracleTimeoutSeconds = 60;

// One request line to the oracle's socket here, its answer line back.
Result<std::string> AskOracle(const std::string& socket_path, const std::string& request) {
  sockaddr_un address{};
  if (socket_path.size() >= sizeof address.sun_path) return Error("oracle socket path too long");
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Error::FromErrno("socket");
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  timeval timeout{kOracleTimeoutSeconds, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return Error::FromErrno("connect to the oracle");
  }
  std::string line = request + "\n";
  for (std::size_t done = 0; done < line.size();) {
    ssize_t n = ::send(fd.get(), line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error::FromErrno("send to the oracle");
    done += static_cast<std::size_t>(n);
  }
  std::string answer;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    answer.append(buffer, static_cast<std::size_t>(n));
    if (answer.find('\n') != std::string::npos) break;
  }
  std::size_t newline = answer.find('\n');
  if (newline == std::string::npos) return Error("the oracle gave no answer");
  answer.resize(newline);
  return answer;
}

}  // namespace

Result<std::unique_ptr<RawConnection>> OracleChannel::StartRelay(Engine& engine,
                                                                 const Layout& layout) {
  auto stream = engine.ExecStream(
      layout.sidecar, RelayCommand(),
      std::to_string(kSidecarUid) + ":" + std::to_string(kSidecarUid));
  if (!stream) return stream.error().Context("start the oracle relay");
  return std::make_unique<RawConnection>(std::move(*stream));
}

Result<std::unique_ptr<OracleChannel>> OracleChannel::Start(std::unique_ptr<RawConnection> stream,
                                                            const std::string& oracle_socket) {
  std::unique_ptr<OracleChannel> channel(new OracleChannel);
  channel->stream_ = std::move(stream);
  channel->oracle_socket_ = oracle_socket;
  const std::string listen = std::string(kRelayListen) + "\n";
  if (!channel->stream_->Send(listen.data(), listen.size())) {
    return Error("the oracle relay in the sidecar ended before it was told to listen");
  }
  bool ready = false;
  std::string said;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kRelayWaitMs);
  while (!ready) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return Error("the oracle relay in the sidecar did not start within 30 s");
    bool open = channel->ReadLines(
        [&](const std::string& line) {
          if (line == kRelayReady) return !(ready = true);  // what follows is the loop's
          said += line + " ";
          return true;
        },
        static_cast<int>(left));
    if (!open && !ready) {
      return Error("the oracle relay in the sidecar ended before it listened" +
                   (said.empty() ? std::string() : ": " + said) +
                   " (is the sidecar's corral image this corral's? corral image build corral)");
    }
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::FromErrno("pipe");
  channel->wake_read_.Reset(fds[0]);
  channel->wake_write_.Reset(fds[1]);
  channel->thread_ = std::thread([raw = channel.get()] { raw->Loop(); });
  return channel;
}

bool OracleChannel::ReadLines(const std::function<bool(const std::string&)>& on_line,
                              int timeout_ms) {
  char buffer[65536];
  long n = stream_->Recv(buffer, sizeof buffer);
  if (n == -2) {
    stream_->WaitReadable(timeout_ms);
    n = stream_->Recv(buffer, sizeof buffer);
    if (n == -2) return true;
  }
  // All that is there now: bytes kept from the response's head, or held by
  // the TLS layer, wake no poll.
  while (n > 0) {
    frames_.append(buffer, static_cast<std::size_t>(n));
    n = stream_->Recv(buffer, sizeof buffer);
  }
  TakeFrames(frames_, [&](int stream, std::string_view data) {
    if (stream == 1) lines_.append(data);
  });
  TakeLines(on_line);
  return n == -2;
}

bool OracleChannel::TakeLines(const std::function<bool(const std::string&)>& on_line) {
  for (std::size_t newline; (newline = lines_.find('\n')) != std::string::npos;) {
    std::string line = lines_.substr(0, newline);
    lines_.erase(0, newline + 1);
    if (!on_line(line)) break;
  }
  return true;
}

// A question of the box: {"id":N,"request":...}, asked on a thread of its
// own so that a slow answer holds up no other.
bool OracleChannel::OnQuestion(const std::string& line) {
  auto message = nlohmann::json::parse(line, nullptr, false);
  if (!message.is_object() || !message["id"].is_number_unsigned() ||
      !message.contains("request")) {
    return true;
  }
  questions_++;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++in_flight_;
  }
  std::thread([this, id = message["id"].get<std::uint64_t>(),
               request = message["request"].dump()] { Ask(id, request); })
      .detach();
  return true;
}

void OracleChannel::Loop() {
  auto question = [this](const std::string& line) { return OnQuestion(line); };
  // Questions may have come with the relay's ready line.
  TakeLines(question);
  if (!ReadLines(question, 0)) return;
  for (;;) {
    pollfd fds[2] = {{stream_->fd(), POLLIN, 0}, {wake_read_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents) {
      char bytes[256];
      (void)!::read(wake_read_.get(), bytes, sizeof bytes);
      std::string send;
      bool stopping;
      {
        std::lock_guard<std::mutex> lock(mu_);
        send.swap(outgoing_);
        stopping = stopping_;
      }
      if (!send.empty() && !stream_->Send(send.data(), send.size())) return;
      if (stopping) return;
    }
    if (!fds[0].revents) continue;
    bool open = ReadLines(question, 0);
    if (!open) return;  // the relay is gone: the box's watchdog ends it
  }
}

void OracleChannel::Ask(std::uint64_t id, const std::string& request) {
  auto answer = AskOracle(oracle_socket_, request);
  nlohmann::json parsed =
      answer ? nlohmann::json::parse(*answer, nullptr, false) : nlohmann::json();
  if (parsed.is_discarded()) parsed = nullptr;
  std::string line = nlohmann::json{{"id", id}, {"answer", parsed}}.dump() + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  outgoing_ += line;
  char wake = 'w';
  (void)!::write(wake_write_.get(), &wake, 1);
  --in_flight_;
  settled_.notify_all();
}

std::uint64_t OracleChannel::questions() const { return questions_.load(); }

OracleChannel::~OracleChannel() {
  {
    // Questions being asked are answered first (bounded by the oracle's
    // timeout), then the loop sends them and stops.
    std::unique_lock<std::mutex> lock(mu_);
    settled_.wait(lock, [this] { return in_flight_ == 0; });
    stopping_ = true;
  }
  if (thread_.joinable()) {
    char wake = 's';
    (void)!::write(wake_write_.get(), &wake, 1);
    thread_.join();
  }
  stream_.reset();  // the relay's stdin ends: it removes its sockets and goes
}

}  // namespace corral::launcher::network_mode
