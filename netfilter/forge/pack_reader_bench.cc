// Times PackReader on a real pack fed in 16 KiB pieces, as the proxy feeds a
// push, and prints MB/s next to SHA-1 alone (the least any reader must do).
// Make a pack of 128 MiB of random blobs with:
//   git init -q big && cd big && for i in $(seq 128); do head -c 1M /dev/urandom >f$i; done
//   git add . && git commit -qm big && git pack-objects --stdout --revs --all </dev/null >big.pack
// usage: pack_reader_bench PACK [sha256]
#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "netfilter/forge/pack_reader.h"

namespace {

using corral::netfilter::forge::ObjectFormat;
using corral::netfilter::forge::PackReader;

constexpr std::size_t kPiece = 16 << 10;
constexpr int kRounds = 5;

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// The best of kRounds, in seconds; false when the reader refused the pack.
bool TimeReader(const std::string& pack, ObjectFormat format, double& best, std::size_t& commits) {
  best = 1e9;
  for (int round = 0; round < kRounds; ++round) {
    auto start = std::chrono::steady_clock::now();
    PackReader reader(format);
    for (std::size_t at = 0; at < pack.size(); at += kPiece) {
      auto fed = reader.Feed(std::string_view(pack).substr(at, kPiece));
      if (!fed.ok()) {
        std::fprintf(stderr, "refused: %s\n", fed.error().message.c_str());
        return false;
      }
    }
    auto finished = reader.Finish();
    if (!finished.ok()) {
      std::fprintf(stderr, "refused: %s\n", finished.error().message.c_str());
      return false;
    }
    best = std::min(best, Seconds(std::chrono::steady_clock::now() - start));
    commits = reader.commits().size();
  }
  return true;
}

double TimeSha1(const std::string& pack) {
  double best = 1e9;
  for (int round = 0; round < kRounds; ++round) {
    auto start = std::chrono::steady_clock::now();
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha1(), nullptr);
    for (std::size_t at = 0; at < pack.size(); at += kPiece) {
      EVP_DigestUpdate(ctx, pack.data() + at, std::min(kPiece, pack.size() - at));
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    EVP_DigestFinal_ex(ctx, digest, nullptr);
    EVP_MD_CTX_free(ctx);
    best = std::min(best, Seconds(std::chrono::steady_clock::now() - start));
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::strcmp(argv[2], "sha256") != 0)) {
    std::fprintf(stderr, "usage: %s PACK [sha256]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::string pack((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in || pack.empty()) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  ObjectFormat format = argc == 3 ? ObjectFormat::kSha256 : ObjectFormat::kSha1;
  double reader_seconds = 0;
  std::size_t commits = 0;
  if (!TimeReader(pack, format, reader_seconds, commits)) return 1;
  double mb = pack.size() / 1e6;
  std::printf("%.1f MB pack, %zu commits, in %zu-byte pieces (best of %d)\n", mb, commits, kPiece,
              kRounds);
  std::printf("PackReader: %8.1f MB/s\n", mb / reader_seconds);
  std::printf("SHA-1 only: %8.1f MB/s\n", mb / TimeSha1(pack));
  return 0;
}
