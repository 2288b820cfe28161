#include "netfilter/login_exchange.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "netfilter/origin_probe.h"

namespace corral::netfilter {
namespace {

constexpr std::size_t kReadSize = 16 * 1024;
// A token endpoint's answer is read whole before the box gets it.
constexpr std::size_t kLargestTokenAnswer = 1024 * 1024;

std::string_view StatusText(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 405: return "Method Not Allowed";
    case 502: return "Bad Gateway";
    default: return "Error";
  }
}

std::string Chunk(std::string_view data) {
  if (data.empty()) return {};
  char size[20];
  int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out(size, static_cast<std::size_t>(n));
  out.append(data);
  out.append("\r\n");
  return out;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// One connection's exchanges. Reads block (with the idle timeout set on the
// sockets), so each step is plain sequential code.
class Exchanges {
 public:
  Exchanges(Stream& box, Stream& origin, const ExchangeSetup& setup, std::string box_in)
      : box_(box), origin_(origin), setup_(setup), box_in_(std::move(box_in)) {}

  void Run(std::optional<RequestHead> first) {
    while (true) {
      RequestHead req;
      if (first) {
        req = std::move(*first);
        first.reset();
      } else if (!ReadRequest(req)) {
        return;
      }
      if (!Serve(req)) return;
      if (!setup_.tls) return;  // plain http: one exchange, then the box dials again through the loop
    }
  }

 private:
  bool ReadRequest(RequestHead& req) {
    while (true) {
      auto parsed = ParseRequest(box_in_, setup_.max_head, RequestForm::kOrigin);
      if (parsed.state == ParseState::kDone) {
        req = std::move(parsed.head);
        box_in_.erase(0, req.size);
        return true;
      }
      if (parsed.state == ParseState::kError) {
        Refuse(parsed.error.status, "bad-request", parsed.error.reason);
        return false;
      }
      if (!ReadMore(box_, box_in_)) return false;  // the box closed between requests: done
    }
  }

  static bool ReadMore(Stream& from, std::string& into) {
    char buf[kReadSize];
    long n = from.Read(buf, sizeof buf);
    if (n <= 0) return false;
    into.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  // One exchange; false when the connection ends with it.
  bool Serve(RequestHead& req) {
    started_ = std::chrono::steady_clock::now();
    line_ = setup_.base;
    line_.method = req.method;
    bytes_up_ = bytes_down_ = 0;
    if (req.method == "TRACE") {
      // TRACE echoes the request, real login included, back to the box.
      return Refuse(405, "trace-refused", "TRACE is not forwarded (it would echo the request back)");
    }
    if (setup_.tls) {
      auto host = ParseAuthority(req.authority, setup_.port);
      if (!host || host->host.name != setup_.host.name || host->port != setup_.port) {
        return Refuse(400, "host-mismatch", "Host header '" + req.authority + "' is not the CONNECT host " +
                                                setup_.host.name + ":" + std::to_string(setup_.port));
      }
    }
    table_ = setup_.store->Current();
    mine_ = table_->For(setup_.host, setup_.port);
    endpoint_ = setup_.endpoints ? setup_.endpoints->For(setup_.host, setup_.port, req.method, req.path) : nullptr;
    push_.reset();
    push_outcome_.reset();
    sent_continue_ = false;
    std::optional<forge::Judgement> judged;
    if (setup_.forge && setup_.forge->Covers(HostPort())) {
      judged = JudgeForge(req);
      if (!judged) return false;  // refused, or the box left
    } else if (setup_.requests && setup_.requests->Covers(setup_.host.name, setup_.port)) {
      // A registry, or a host with rules: judged by what the request does.
      requests::Verdict verdict = setup_.requests->Judge(setup_.host.name, setup_.port, req.method, req.path, req.headers);
      if (!verdict.rule.empty()) line_.forge_rule = verdict.rule;
      if (!verdict.allowed) {
        line_.path = req.path.substr(0, 512);
        return Refuse(403, "request-rule", verdict.reason);
      }
    }
    HeadVerdict verdict = ApplyLogins(*table_, mine_, req);
    if (verdict.refused) {
      line_.credential = "credential-to-wrong-host";
      return Refuse(403, "stand-in-refused", *verdict.refused);
    }
    if (!verdict.added.empty()) line_.login = Joined(verdict.added);
    if (judged && judged->action == forge::Judgement::Action::kPush && !StartPushCheck(req, *judged)) return false;
    bool expect_continue = false;
    std::erase_if(req.headers, [&](const Header& h) {
      bool expect = EqualsIgnoreCase(h.name, "expect") && EqualsIgnoreCase(h.value, "100-continue");
      expect_continue |= expect;
      // The tokens in a token endpoint's answer must be readable to be replaced.
      return expect || (endpoint_ && EqualsIgnoreCase(h.name, "accept-encoding"));
    });
    // Only codings the proxy can decode (it reads every response to hide real values).
    for (Header& h : req.headers) {
      if (EqualsIgnoreCase(h.name, "accept-encoding")) h.value = ReadableAcceptEncoding(h.value);
    }
    std::string host_header = setup_.tls ? req.authority
                              : setup_.port == 80 ? setup_.host.name
                                                  : setup_.host.name + ":" + std::to_string(setup_.port);
    if (!origin_.Write(OriginRequestHead(req, req.path, host_header))) {
      return Refuse(502, "bad-gateway", "the origin closed the connection");
    }
    // The body goes on without waiting for the origin's 100: this proxy reads it anyway.
    if (expect_continue && req.minor == 1 && !sent_continue_ && !box_.Write("HTTP/1.1 100 Continue\r\n\r\n")) {
      return false;
    }
    if (!SendBody(req)) return false;
    return RelayResponse(req);
  }

  // The request body by its framing, through the stand-in scanner: another
  // login's stand-in in it (even one split across reads) stops the request
  // before it is whole. This host's own go as they are (an agent that sends
  // its model what `env` printed).
  bool SendBody(const RequestHead& req) {
    StreamReplacer scan = FindStandIns(*table_, mine_);
    StreamReplacer values = BodyValues(mine_);  // a refresh token, say
    std::string scanned, out;
    auto pass = [&](std::string_view data, bool last) {
      scanned.clear();
      scan.Feed(data, scanned);
      if (last) scan.Finish(scanned);
      if (scan.matched()) return false;
      out.clear();
      values.Feed(scanned, out);
      if (last) values.Finish(out);
      if (push_ && !CheckPush(out, last)) return false;
      std::string framed = req.body == BodyKind::kChunked ? Chunk(out) : out;
      if (last && req.body == BodyKind::kChunked) framed += "0\r\n\r\n";
      bytes_up_ += out.size();
      return origin_.Write(framed);
    };
    if (req.body == BodyKind::kLength) {
      uint64_t left = req.content_length;
      while (left > 0) {
        if (box_in_.empty() && !ReadMore(box_, box_in_)) return BoxLeft();
        std::size_t take = static_cast<std::size_t>(std::min<uint64_t>(left, box_in_.size()));
        left -= take;
        bool ok = pass(std::string_view(box_in_).substr(0, take), left == 0);
        box_in_.erase(0, take);
        if (!ok) return push_outcome_ && push_outcome_->refused ? RefusePush() : RefuseBody();
      }
    } else if (req.body == BodyKind::kChunked) {
      ChunkedDecoder chunks;
      while (!chunks.done()) {
        if (box_in_.empty() && !ReadMore(box_, box_in_)) return BoxLeft();
        std::string payload;
        box_in_.erase(0, chunks.Consume(box_in_, &payload));
        if (chunks.failed()) return Refuse(400, "bad-request", "malformed chunked request body");
        if (!pass(payload, chunks.done())) return push_outcome_ && push_outcome_->refused ? RefusePush() : RefuseBody();
      }
    }
    return true;
  }

  std::string HostPort() const { return setup_.host.name + ":" + std::to_string(setup_.port); }

  bool Unattended() const { return !setup_.watching || !setup_.watching(); }

  // The forge's verdict on this request (reading its body first where the
  // head cannot tell); nullopt once refused. A request that may not carry
  // the user's token loses this host's stand-ins and gets no login; a forge
  // login never goes in clear.
  std::optional<forge::Judgement> JudgeForge(RequestHead& req) {
    bool unattended = Unattended();
    forge::Judgement judged = setup_.forge->Judge(HostPort(), req.method, req.path, unattended);
    if (judged.action == forge::Judgement::Action::kReadBody) {
      std::string body;
      if (!PeekBody(req, body)) return std::nullopt;
      judged = setup_.forge->JudgeBody(HostPort(), req.method, req.path, body, unattended,
                                       [&](const std::string& id) { return NodeRepository(req, id); });
    }
    line_.forge_rule = judged.rule;
    if (!judged.repo.empty()) line_.repository = judged.repo;
    line_.path = req.path.substr(0, 512);
    if (judged.action == forge::Judgement::Action::kRefuse) {
      Refuse(403, "forge-" + judged.rule, judged.reason);
      return std::nullopt;
    }
    if (!judged.token || !setup_.tls) {
      std::erase_if(req.headers, [&](const Header& h) {
        const Login* login = table_->StandInIn(h.value);
        return login && std::find(mine_.begin(), mine_.end(), login) != mine_.end();
      });
      mine_.clear();
    }
    return judged;
  }

  // The body of a request the forge judges whole, left framed in `box_in_`
  // for SendBody; its payload in `body`.
  bool PeekBody(const RequestHead& req, std::string& body) {
    constexpr std::size_t kLargest = 1024 * 1024;
    if (req.minor == 1 && !sent_continue_ &&
        std::any_of(req.headers.begin(), req.headers.end(), [](const Header& h) {
          return EqualsIgnoreCase(h.name, "expect") && EqualsIgnoreCase(h.value, "100-continue");
        })) {
      if (!box_.Write("HTTP/1.1 100 Continue\r\n\r\n")) return false;
      sent_continue_ = true;
    }
    if (req.body == BodyKind::kLength) {
      if (req.content_length > kLargest) {
        return Refuse(413, "forge-body-too-large", "the body is larger than the 1 MiB the forge's judge reads");
      }
      while (box_in_.size() < req.content_length) {
        if (!ReadMore(box_, box_in_)) return BoxLeft();
      }
      body = box_in_.substr(0, req.content_length);
      return true;
    }
    if (req.body == BodyKind::kChunked) {
      while (true) {
        ChunkedDecoder chunks;
        std::string payload;
        chunks.Consume(box_in_, &payload);
        if (chunks.failed()) return Refuse(400, "bad-request", "malformed chunked request body");
        if (chunks.done()) {
          body = std::move(payload);
          return true;
        }
        if (box_in_.size() > kLargest) {
          return Refuse(413, "forge-body-too-large", "the body is larger than the 1 MiB the forge's judge reads");
        }
        if (!ReadMore(box_, box_in_)) return BoxLeft();
      }
    }
    body.clear();
    return true;
  }

  // The repository a GraphQL node id belongs to, asked of the API with the
  // user's token (on this connection) and kept for the session.
  std::string NodeRepository(const RequestHead& req, const std::string& id) {
    std::string key = HostPort() + " node " + id;
    if (auto known = setup_.memo->Get(key)) return *known;
    RequestHead asking = req;
    ApplyLogins(*table_, mine_, asking);
    nlohmann::json query = {
        {"query", "query($id:ID!){node(id:$id){__typename ... on Repository{nameWithOwner} "
                  "... on RepositoryNode{repository{nameWithOwner}}}}"},
        {"variables", {{"id", id}}}};
    auto answer = ProbeOrigin(origin_, origin_in_, asking, req.authority, "POST", req.path, "application/json",
                              query.dump(), setup_.max_head, 1024 * 1024);
    std::string repo;
    if (answer && answer->status == 200) {
      auto json = nlohmann::json::parse(answer->body, nullptr, false);
      if (json.is_object() && json.contains("data") && json["data"].is_object()) {
        const auto& node = json["data"]["node"];
        if (node.is_object()) {
          const nlohmann::json* named = node.contains("nameWithOwner") ? &node["nameWithOwner"]
                                        : node.contains("repository") && node["repository"].is_object()
                                            ? &node["repository"]["nameWithOwner"]
                                            : nullptr;
          if (named && named->is_string()) repo = AsciiLower(named->get<std::string>());
        }
      }
    }
    if (answer && answer->keep_alive) setup_.memo->Set(key, repo);
    return repo;
  }

  // A push judged while nobody watches: the repository's default branch is
  // learned (once a session) and protected with the config's branches.
  bool StartPushCheck(const RequestHead& req, const forge::Judgement& judged) {
    std::string key = HostPort() + "/" + judged.repo;
    std::optional<std::string> head = setup_.memo->Get(key);
    if (!head) {
      auto answer = ProbeOrigin(origin_, origin_in_, req, req.authority, "GET", forge::AdvertisementTarget(req.path),
                                "", "", setup_.max_head, 16 * 1024 * 1024);
      std::string ref = answer && answer->status == 200 ? forge::DefaultBranchOf(answer->body) : "";
      if (ref.empty() || !answer->keep_alive) {
        return Refuse(403, "forge-default-branch-unknown",
                      "corral could not learn " + judged.repo + "'s default branch from " + setup_.host.name +
                          (answer ? "" : " (" + answer.error().message + ")") +
                          ", so this push was not let through while nobody watches");
      }
      setup_.memo->Set(key, ref);
      head = ref;
    }
    std::set<std::string> protect = {*head};
    for (const std::string& branch : setup_.forge->config().protected_branches) {
      protect.insert(branch.rfind("refs/", 0) == 0 ? branch : "refs/heads/" + branch);
    }
    push_.emplace(std::move(protect));
    push_head_ = req;  // its credentials, for asking the forge
    push_target_ = req.path.substr(0, req.path.find('?'));
    return true;
  }

  // Passes the push's bytes through its check; at the end, false when it is
  // refused (the tail, and with it a whole pack, never reaches the origin).
  bool CheckPush(std::string& out, bool last) {
    std::string now;
    push_->Feed(out, now);
    if (last) {
      push_outcome_ = push_->Finish([&](const std::vector<std::string>& wants, const std::string& have) {
        return AskForgeBetween(wants, have);
      });
      if (push_outcome_->refused) return false;
      now += push_outcome_->tail;
    }
    out = std::move(now);
    return true;
  }

  // The commits the forge holds between `wants` and `have`, asked on a
  // second connection (the box's push is still under way on this one) with
  // the push's own credentials.
  Result<forge::CommitGraph> AskForgeBetween(const std::vector<std::string>& wants, const std::string& have) {
    if (wants.empty()) return Error("no commit to ask about");
    if (!setup_.dial_origin) return Error("no second connection to the forge");
    auto link = setup_.dial_origin();
    if (!link) return link.error();
    bool sha256 = have.size() == 64;
    std::string target = push_target_.substr(0, push_target_.rfind("/git-receive-pack")) + "/git-upload-pack";
    std::string in;
    constexpr std::size_t kLargestAnswer = 64 * 1024 * 1024;
    auto answer = ProbeOrigin(*link->stream, in, push_head_, push_head_.authority, "POST", target,
                              "application/x-git-upload-pack-request", forge::UploadPackRequest(wants, have, sha256),
                              setup_.max_head, kLargestAnswer);
    if (!answer) return answer.error();
    if (answer->status != 200) return Error("the forge answered " + std::to_string(answer->status));
    return forge::CommitsOfUploadPackAnswer(answer->body, sha256);
  }

  // The push's refusal as git reads it: its report-status, so `git push`
  // prints each ref's reason.
  bool RefusePush() {
    const auto& outcome = *push_outcome_;
    line_.forge_rule = "history";
    if (outcome.report.empty()) return Refuse(403, "forge-history", outcome.reason);
    line_.status = 200;
    box_.Write("HTTP/1.1 200 OK\r\nContent-Type: application/x-git-receive-pack-result\r\n"
               "Cache-Control: no-cache\r\nX-Corral-Error: forge-history\r\nContent-Length: " +
               std::to_string(outcome.report.size()) + "\r\nConnection: close\r\n\r\n" + outcome.report);
    Log("deny", "forge-history: " + outcome.reason);
    return false;
  }

  bool BoxLeft() {
    Log("error", "the box closed before its request body ended");
    return false;
  }

  bool RefuseBody() {
    line_.credential = "credential-to-wrong-host";
    return Refuse(403, "stand-in-refused",
                  "another login's stand-in is in the request body, and this host is not where it "
                  "belongs; the request was cut off before it was whole");
  }

  bool RelayResponse(const RequestHead& req) {
    StreamReplacer hide_head = HideValues(*table_);
    std::string out;
    while (true) {
      auto parsed = ParseResponse(origin_in_, setup_.max_head, req.method);
      if (parsed.state == ParseState::kError) return Refuse(502, "bad-gateway", parsed.error.reason);
      if (parsed.state == ParseState::kIncomplete) {
        if (!ReadMore(origin_, origin_in_)) {
          return Refuse(502, "bad-gateway", "the origin closed without a response");
        }
        continue;
      }
      ResponseHead res = std::move(parsed.head);
      origin_in_.erase(0, res.size);
      if (res.status == 101) return Refuse(502, "bad-gateway", "the origin switched protocols unasked");
      bool interim = res.status < 200;
      // A compressed body is decoded, so the real values in it can be hidden:
      // the box gets it plain (`sent`), chunked or delimited by the close.
      std::unique_ptr<ContentDecoder> decoder;
      ResponseHead sent = res;
      std::vector<std::string> codings = BodyCodings(res);
      if (!interim && res.body != BodyKind::kNone && !codings.empty()) {
        auto made = ContentDecoder::Make(codings);
        if (!made) return Refuse(502, "encoding-unknown", made.error().message + "; it was not passed on");
        decoder = std::move(*made);
        sent = DecodedHead(res);
      }
      bool dechunk = sent.body == BodyKind::kChunked && req.minor == 0;
      bool close = !setup_.tls || !req.keep_alive || !res.keep_alive || res.body == BodyKind::kUntilClose || dechunk;
      out.clear();
      hide_head.Feed(ClientResponseHead(sent, close, req.minor, interim, dechunk), out);
      hide_head.Finish(out);
      if (interim) {
        if (req.minor == 1 && !box_.Write(out)) return false;
        continue;
      }
      line_.status = res.status;
      if (!box_.Write(out)) return false;
      std::string tokens;
      if (!RelayBody(res, sent.body == BodyKind::kChunked && !dechunk, decoder.get(), tokens)) return false;
      Log("allow", !tokens.empty() ? "forwarded, " + tokens
                   : line_.login  ? "forwarded, login added"
                                  : "forwarded");
      return !close;
    }
  }

  // Streams the body as it comes (`decoder`: decoded first): each read goes
  // to the box at once, less only a tail that may begin a real value.
  // `chunk`: the box gets it in chunked framing.
  bool RelayBody(const ResponseHead& res, bool chunk, ContentDecoder* decoder, std::string& tokens) {
    StreamReplacer hide = HideValues(*table_);
    std::string out, answer;
    bool chunked = res.body == BodyKind::kChunked;
    auto send = [&](std::string_view data, bool last) {
      out.clear();
      hide.Feed(data, out);
      if (last) hide.Finish(out);
      bytes_down_ += out.size();
      std::string framed = chunk ? Chunk(out) : out;
      if (last && chunk) framed += "0\r\n\r\n";
      return framed.empty() || box_.Write(framed);
    };
    // A token endpoint's answer is held whole, its tokens swapped for
    // stand-ins, then sent; any other body streams as it comes.
    auto pass = [&](std::string_view data, bool last) {
      if (!endpoint_) return send(data, last);
      answer.append(data);
      if (answer.size() > kLargestTokenAnswer) {
        Log("error", "the token endpoint's answer is larger than 1 MiB; it was not passed on");
        return false;
      }
      if (!last) return true;
      auto captured = CaptureTokens(*endpoint_, *table_, answer);
      if (!captured) {
        Log("error", captured.error().message + "; the answer was not passed on");
        return false;
      }
      if (!captured->logins.empty()) {
        if (auto added = setup_.store->Add(captured->logins); !added) {
          Log("error", "the token endpoint's tokens could not be held: " + added.error().message);
          return false;
        }
      }
      if (!captured->update.tokens.empty()) {
        tokens = std::to_string(captured->update.tokens.size()) + " token(s) from " + endpoint_->name +
                 " held by the proxy, the box has stand-ins";
        if (setup_.on_tokens) setup_.on_tokens(captured->update);
      }
      return send(answer, true);
    };
    auto feed = [&](std::string_view data, bool last) {
      if (!decoder) return pass(data, last);
      bool taken = true;
      auto piece = [&](std::string_view decoded) { return taken = pass(decoded, false); };
      Result<void> decoded = decoder->Feed(data, piece);
      if (decoded && last) decoded = decoder->Finish(piece);
      if (!taken) return false;  // already logged, or the box left
      if (!decoded) {
        Log("error", decoded.error().message + "; the response was cut off");
        return false;
      }
      return !last || pass({}, true);
    };
    if (res.body == BodyKind::kNone) return true;
    uint64_t left = res.content_length;
    ChunkedDecoder chunks;
    while (true) {
      if (origin_in_.empty() && !ReadMore(origin_, origin_in_)) {
        if (res.body == BodyKind::kUntilClose) return feed({}, true);
        Log("error", "the origin closed mid-response");
        return false;
      }
      if (res.body == BodyKind::kLength) {
        std::size_t take = static_cast<std::size_t>(std::min<uint64_t>(left, origin_in_.size()));
        left -= take;
        bool ok = feed(std::string_view(origin_in_).substr(0, take), left == 0);
        origin_in_.erase(0, take);
        if (!ok) return false;
        if (left == 0) return true;
      } else if (chunked) {
        std::string payload;
        origin_in_.erase(0, chunks.Consume(origin_in_, &payload));
        if (chunks.failed()) {
          Log("error", "malformed chunked response from the origin");
          return false;
        }
        if (!feed(payload, chunks.done())) return false;
        if (chunks.done()) return true;
      } else {
        bool ok = feed(origin_in_, false);
        origin_in_.clear();
        if (!ok) return false;
      }
    }
  }

  // Answers the box (unless a response is under way) and ends the connection.
  bool Refuse(int status, std::string_view code, const std::string& reason) {
    line_.status = status;
    std::string body = "corral proxy refused " + line_.method + " to " + setup_.host.name + ": " + reason + "\n";
    box_.Write(ErrorResponse(status, code, body));
    Log(status >= 500 ? "error" : "deny", std::string(code) + ": " + reason);
    return false;
  }

  void Log(std::string_view decision, std::string reason) {
    line_.decision = decision;
    line_.reason = std::move(reason);
    line_.bytes_up = bytes_up_;
    line_.bytes_down = bytes_down_;
    line_.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started_).count();
    WriteDecision(setup_.log, line_);
  }

  Stream& box_;
  Stream& origin_;
  const ExchangeSetup& setup_;
  std::string box_in_, origin_in_;
  Decision line_;
  std::shared_ptr<const LoginTable> table_;  // as it was when this request came
  std::vector<const Login*> mine_;            // this host's logins in it
  const TokenEndpoint* endpoint_ = nullptr;   // when the request is to a token endpoint
  std::optional<forge::PushCheck> push_;        // a push judged while nobody watches
  std::optional<forge::PushCheck::Outcome> push_outcome_;
  RequestHead push_head_;    // the push's head, its login applied
  std::string push_target_;  // its path, ".../git-receive-pack"
  bool sent_continue_ = false;  // this request got the proxy's own 100 Continue
  uint64_t bytes_up_ = 0, bytes_down_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace

std::string ErrorResponse(int status, std::string_view code, std::string_view body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(StatusText(status)) +
         "\r\nX-Corral-Error: " + std::string(code) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + std::string(body);
}

void RunExchanges(Stream& box, Stream& origin, const ExchangeSetup& setup, std::optional<RequestHead> first,
                  std::string box_in) {
  Exchanges(box, origin, setup, std::move(box_in)).Run(std::move(first));
}

}  // namespace corral::netfilter
