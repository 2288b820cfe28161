// Stand-ins for logins (docs/logins.md): the box's copy of a secret, of its
// shape and length, made from the kernel's random source.
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "netfilter/logins/logins.h"

namespace corral::netfilter {
namespace {

// Fewer random positions than this, and a stand-in could be guessed from
// the value's shape.
constexpr std::size_t kMinRandom = 8;

// One random byte below `bound` (no modulo bias), from the kernel's CSPRNG.
unsigned char RandomBelow(unsigned bound) {
  const unsigned limit = 256 - 256 % bound;
  while (true) {
    unsigned char byte = 0;
    if (::getrandom(&byte, 1, 0) == 1 && byte < limit) return byte % bound;
  }
}

bool Randomized(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '-' || c == '_';
}

char SameClass(char c) {
  static constexpr char kDigits[] = "0123456789";
  static constexpr char kLower[] = "abcdefghijklmnopqrstuvwxyz";
  static constexpr char kUpper[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  unsigned char u = static_cast<unsigned char>(c);
  if (std::isdigit(u)) return kDigits[RandomBelow(10)];
  if (std::islower(u)) return kLower[RandomBelow(26)];
  if (std::isupper(u)) return kUpper[RandomBelow(26)];
  if (c == '-' || c == '_') return RandomBelow(2) ? '-' : '_';  // base64url's two
  return c;  // dots, padding: the shape
}

// Where a JWT's signature starts ("eyJ" header, '.', claims, '.'), else 0.
// Its header and claims are no secret, and agents read them (an account,
// a plan, an expiry): only the signature is replaced.
std::size_t JwtSignatureStart(std::string_view value) {
  if (value.substr(0, 3) != "eyJ") return 0;
  std::size_t first = value.find('.');
  std::size_t second = first == value.npos ? value.npos : value.find('.', first + 1);
  if (second == value.npos || value.find('.', second + 1) != value.npos) return 0;
  for (char c : value) {
    if (!Randomized(c) && c != '.' && c != '=') return 0;
  }
  return second + 1;
}

}  // namespace

std::string LoginValuePrefix(std::string_view value) {
  // Longest first. Anthropic (API key, OAuth token), OpenAI (project,
  // service account, admin, legacy), OpenRouter, GitHub, Google, GitLab.
  static constexpr std::array<std::string_view, 17> kPrefixes = {
      "sk-ant-api03-", "sk-ant-oat01-", "sk-ant-ort01-", "sk-svcacct-", "github_pat_",
      "sk-or-v1-",     "sk-admin-",     "sk-proj-",      "sk-ant-",     "glpat-",
      "ghp_",          "gho_",          "ghu_",          "ghs_",        "ghr_",
      "AIza",          "sk-"};
  for (std::string_view prefix : kPrefixes) {
    if (value.size() > prefix.size() && value.substr(0, prefix.size()) == prefix) {
      return std::string(prefix);
    }
  }
  return "";
}

std::string MakeStandIn(std::string_view value) {
  std::size_t kept = JwtSignatureStart(value);
  if (kept == 0) kept = LoginValuePrefix(value).size();
  std::string_view rest = value.substr(kept);
  if (static_cast<std::size_t>(std::count_if(rest.begin(), rest.end(), Randomized)) < kMinRandom) {
    return "";
  }
  while (true) {
    std::string out(value.substr(0, kept));
    for (char c : rest) out += SameClass(c);
    if (out != value) return out;
  }
}

}  // namespace corral::netfilter
