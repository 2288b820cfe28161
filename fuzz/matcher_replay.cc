// Replays fuzz corpus files (or directories of them) through the matcher
// with the fuzz target's invariants; builds with any compiler.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/matcher_fuzz_check.h"

namespace {

int Replay(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "matcher_replay: cannot read %s\n", path.c_str());
    return 1;
  }
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  corral::fuzz::CheckOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: matcher_replay CORPUS_DIR_OR_FILE...\n");
    return 2;
  }
  int failures = 0;
  int count = 0;
  for (int i = 1; i < argc; ++i) {
    std::error_code error;
    std::filesystem::path root(argv[i]);
    if (std::filesystem::is_directory(root, error)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      for (const auto& file : files) {
        failures += Replay(file);
        ++count;
      }
    } else {
      failures += Replay(root);
      ++count;
    }
  }
  std::printf("replayed %d inputs, %d unreadable\n", count, failures);
  return failures == 0 && count > 0 ? 0 : 1;
}
