#include "netfilter/logins/logins.h"

#include <algorithm>
#include <cstring>

#include "netfilter/http/http.h"

namespace corral::netfilter {
namespace {

constexpr std::size_t kMinSecret = 8;  // shorter would match by chance in ordinary traffic

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && EqualsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

}  // namespace

Result<std::shared_ptr<const LoginTable>> LoginTable::Make(std::vector<Login> logins) {
  auto table = std::make_shared<LoginTable>();
  std::vector<std::string_view> secrets;
  for (const Login& login : logins) {
    std::string where = "login '" + login.name + "'";
    if (login.name.empty()) return Error("a login has no name; give each login a name for the log");
    if (login.header.empty() && !login.in_body) {
      return Error(where + " names no header to put the value in (and does not go in bodies)");
    }
    if (login.hosts.empty()) return Error(where + " names no host; list the host:port it belongs to");
    if (login.value.size() < kMinSecret || login.stand_in.size() < kMinSecret) {
      return Error(where + ": the value and the stand-in must each be at least " + std::to_string(kMinSecret) +
                   " bytes");
    }
    if (login.value.size() != login.stand_in.size()) {
      return Error(where + ": the stand-in must be as long as the value (so replacing one with the other "
                           "keeps the message's length); make it the same shape");
    }
    std::vector<HostPort> hosts;
    for (const std::string& host : login.hosts) {
      auto parsed = ParseAuthority(host, std::nullopt);
      if (!parsed) return Error(where + ": host '" + host + "' must be NAME:PORT: " + parsed.error().message);
      hosts.push_back(*parsed);
    }
    // One secret may go in several forms (gh's `token`, `Bearer`, git's
    // Basic): the same value with the same stand-in is no overlap.
    bool again = std::any_of(logins.begin(), logins.begin() + (&login - logins.data()), [&](const Login& other) {
      return other.value == login.value && other.stand_in == login.stand_in;
    });
    for (std::string_view s : {std::string_view(login.value), std::string_view(login.stand_in)}) {
      for (std::string_view other : secrets) {
        if (!again && (s.find(other) != s.npos || other.find(s) != other.npos)) {
          return Error(where + ": its value or stand-in overlaps another login's; each must be unique");
        }
      }
      if (!again) secrets.push_back(s);
    }
    table->hosts_.push_back(std::move(hosts));
  }
  table->logins_ = std::move(logins);
  return std::shared_ptr<const LoginTable>(std::move(table));
}

std::shared_ptr<const LoginTable> LoginStore::Current() const {
  std::lock_guard lock(mutex_);
  return table_;
}

Result<void> LoginStore::Add(std::vector<Login> more) {
  std::lock_guard lock(mutex_);
  std::vector<Login> all = table_->logins();
  all.insert(all.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  auto table = LoginTable::Make(std::move(all));
  if (!table) return table.error();
  table_ = std::move(*table);
  return Ok();
}

std::vector<const Login*> LoginTable::For(const CanonicalHost& host, uint16_t port) const {
  std::vector<const Login*> out;
  for (std::size_t i = 0; i < logins_.size(); ++i) {
    for (const HostPort& hp : hosts_[i]) {
      if (hp.port == port && hp.host.name == host.name) {
        out.push_back(&logins_[i]);
        break;
      }
    }
  }
  return out;
}

namespace {

// One of `mine`, or the same secret in another form: it may go here.
bool Mine(const Login& login, const std::vector<const Login*>& mine) {
  return std::any_of(mine.begin(), mine.end(), [&](const Login* m) { return m->stand_in == login.stand_in; });
}

// The user name and password of Basic credentials ("Basic dXNlcjpwYXNz").
std::optional<std::string> BasicCredentials(std::string_view value) {
  if (!StartsWithIgnoreCase(value, "basic ")) return std::nullopt;
  value.remove_prefix(6);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return DecodeBase64(value);
}

}  // namespace

const Login* LoginTable::StandInIn(std::string_view text,
                                   const std::vector<const Login*>& mine) const {
  // A stand-in in Basic credentials is looked for where it is, decoded.
  std::optional<std::string> basic = BasicCredentials(text);
  for (const Login& login : logins_) {
    if (Mine(login, mine)) continue;
    if (text.find(login.stand_in) != std::string_view::npos) return &login;
    if (basic && basic->find(login.stand_in) != std::string::npos) return &login;
  }
  return nullptr;
}

HeadVerdict ApplyLogins(const LoginTable& table, const std::vector<const Login*>& mine, RequestHead& head) {
  HeadVerdict verdict;
  auto refuse = [&](const Login* login, std::string why) {
    verdict.refused = "the stand-in of login '" + login->name + "' " + why;
    verdict.refused_login = login;
    verdict.added.clear();
    return verdict;
  };
  if (const Login* login = table.StandInIn(head.target, mine)) {
    return refuse(login, "was sent to a host it does not belong to (in the URL)");
  }
  for (Header& h : head.headers) {
    const Login* foreign = table.StandInIn(h.value, mine);
    if (!foreign) foreign = table.StandInIn(h.name, mine);
    if (foreign) {
      return refuse(foreign, "was sent to a host it does not belong to (header " + h.name + ")");
    }
    for (const Login* login : mine) {
      std::string_view value = h.value;
      if (login->basic && EqualsIgnoreCase(h.name, login->header)) {
        // Any user name; the stand-in is the password.
        std::optional<std::string> credentials = BasicCredentials(value);
        std::size_t colon = credentials ? credentials->find(':') : std::string::npos;
        if (colon == std::string::npos || credentials->substr(colon + 1) != login->stand_in) continue;
        h.value = "Basic " + EncodeBase64(credentials->substr(0, colon + 1) + login->value);
        verdict.added.push_back(login->name);
        break;
      }
      if (!login->basic && !login->header.empty() && EqualsIgnoreCase(h.name, login->header) && StartsWithIgnoreCase(value, login->prefix) &&
          value.substr(login->prefix.size()) == login->stand_in) {
        h.value = h.value.substr(0, login->prefix.size()) + login->value;
        verdict.added.push_back(login->name);
        break;
      }
    }
  }
  return verdict;
}

namespace {

constexpr int kStartBits = 14;  // 16 Ki bits: a chance hit in a thousand for a dozen patterns

uint32_t StartKey(const char* at, std::size_t size) {
  uint32_t v = 0;
  if (size == 4) {
    std::memcpy(&v, at, 4);  // one load: the usual case, every pattern being 8 bytes or more
  } else {
    std::memcpy(&v, at, size);
  }
  return (v * 2654435761u) >> (32 - kStartBits);
}

}  // namespace

StreamReplacer::StreamReplacer(std::vector<std::pair<std::string, std::string>> pairs) : pairs_(std::move(pairs)) {
  std::erase_if(pairs_, [](const auto& p) { return p.first.empty(); });
  key_size_ = 4;
  for (const auto& [from, to] : pairs_) key_size_ = std::min(key_size_, from.size());
  starts_.assign((std::size_t{1} << kStartBits) / 64, 0);
  for (const auto& [from, to] : pairs_) {
    uint32_t key = StartKey(from.data(), key_size_);
    starts_[key / 64] |= uint64_t{1} << (key % 64);
  }
}

// The earliest match at or after `from`, and its pair (the first listed,
// when two begin there); npos for none. One pass whatever the number of
// patterns: each position's first bytes are looked up among the patterns'
// starts. (A base64 form begins with a letter, so searching for each
// pattern's first byte, as memchr does, would stop almost everywhere.)
std::pair<std::size_t, std::size_t> StreamReplacer::Next(std::string_view data, std::size_t from) const {
  for (std::size_t i = from; i + key_size_ <= data.size(); ++i) {
    uint32_t key = StartKey(data.data() + i, key_size_);
    if (!((starts_[key / 64] >> (key % 64)) & 1)) continue;
    for (std::size_t j = 0; j < pairs_.size(); ++j) {
      if (data.substr(i).starts_with(pairs_[j].first)) return {i, j};
    }
  }
  return {std::string_view::npos, 0};
}

void StreamReplacer::Feed(std::string_view in, std::string& out) { Run(in, out, false); }

void StreamReplacer::Finish(std::string& out) { Run({}, out, true); }

void StreamReplacer::Run(std::string_view in, std::string& out, bool last) {
  if (pairs_.empty()) {
    out.append(in);
    return;
  }
  std::string buffer = std::move(held_);
  buffer.append(in);
  held_.clear();
  std::string_view data = buffer;
  std::size_t at = 0;
  while (true) {
    auto [first, which] = Next(data, at);
    if (first == std::string_view::npos) break;
    out.append(data.substr(at, first - at));
    out.append(pairs_[which].second);
    matched_ = true;
    at = first + pairs_[which].first.size();
  }
  if (!last) {
    // A tail that could begin a secret waits for the next bytes: only the
    // last (longest secret - 1) bytes can, and only a true prefix of one.
    std::size_t longest = 0;
    for (const auto& [from, to] : pairs_) longest = std::max(longest, from.size());
    for (std::size_t t = std::max(at, data.size() - std::min(data.size(), longest - 1)); t < data.size(); ++t) {
      std::string_view rest = data.substr(t);
      bool begins = std::any_of(pairs_.begin(), pairs_.end(), [&](const auto& pair) {
        return rest.size() < pair.first.size() && std::string_view(pair.first).substr(0, rest.size()) == rest;
      });
      if (begins) {
        out.append(data.substr(at, t - at));
        held_.assign(rest);
        return;
      }
    }
  }
  out.append(data.substr(at));
}

namespace {

// `value`'s base64 text wherever it sits in a longer base64 string: for each
// byte alignment (0, 1, 2 bytes into a 3-byte group), the characters made of
// the value's bits alone, which are the same whatever comes before or after.
// The character before them (at alignments 1 and 2) and the one after them
// also carry a neighbour's bits; they are left as they are, which shows at
// most 4 bits of the value's first byte and 4 of its last.
std::vector<std::string> Base64Forms(std::string_view value) {
  std::vector<std::string> forms;
  for (std::size_t align = 0; align < 3; ++align) {
    std::string text = EncodeBase64(std::string(align, '\0') + std::string(value));
    std::size_t first = (8 * align + 5) / 6;          // the first character whose 6 bits are all the value's
    std::size_t end = 8 * (align + value.size()) / 6;  // past the last
    forms.push_back(text.substr(first, end - first));
  }
  return forms;
}

std::string UrlSafe(std::string text) {
  std::replace(text.begin(), text.end(), '+', '-');
  std::replace(text.begin(), text.end(), '/', '_');
  return text;
}

}  // namespace

StreamReplacer HideValues(const LoginTable& table) {
  std::vector<std::pair<std::string, std::string>> pairs;
  auto add = [&](std::string from, std::string to) {
    // A value of 8 bytes has forms of 10 characters: still no chance match.
    if (from.size() < kMinSecret) return;
    if (std::none_of(pairs.begin(), pairs.end(), [&](const auto& p) { return p.first == from; })) {
      pairs.emplace_back(std::move(from), std::move(to));
    }
  };
  for (const Login& login : table.logins()) {
    add(login.value, login.stand_in);
    std::vector<std::string> real = Base64Forms(login.value), stand_in = Base64Forms(login.stand_in);
    for (std::size_t i = 0; i < real.size(); ++i) {
      add(real[i], stand_in[i]);
      // A form without '+' or '/' is the same in both alphabets: the standard
      // stand-in form, added first, then goes in its place.
      add(UrlSafe(real[i]), UrlSafe(stand_in[i]));
    }
  }
  return StreamReplacer(std::move(pairs));
}

StreamReplacer BodyValues(const std::vector<const Login*>& mine) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const Login* login : mine) {
    if (login->in_body) pairs.emplace_back(login->stand_in, login->value);
  }
  return StreamReplacer(std::move(pairs));
}

StreamReplacer FindStandIns(const LoginTable& table, const std::vector<const Login*>& mine) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const Login& login : table.logins()) {
    if (Mine(login, mine)) continue;
    pairs.emplace_back(login.stand_in, login.stand_in);
  }
  return StreamReplacer(std::move(pairs));
}

}  // namespace corral::netfilter
