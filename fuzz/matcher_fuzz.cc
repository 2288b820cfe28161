// libFuzzer entry point: every input is a command line for the matcher.
#include <cstddef>
#include <cstdint>

#include "fuzz/matcher_fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  corral::fuzz::CheckOneInput(data, size);
  return 0;
}
