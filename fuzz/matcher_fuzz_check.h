// One fuzz input through the matcher, with the invariants every answer must
// keep. Shared by the libFuzzer target and the corpus replay.
#pragma once

#include <cstddef>
#include <cstdint>

namespace corral::fuzz {

// Aborts (so the fuzzer reports it) when an invariant is broken.
void CheckOneInput(const std::uint8_t* data, std::size_t size);

}  // namespace corral::fuzz
