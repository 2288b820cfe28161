// A hash for the matcher's fixed tables of program names (handler kinds,
// wrappers, dangerous commands, the deny list's commands). They are asked
// several times for every command a line runs; std::hash's out-of-line
// murmur cost more than the lookup itself for names this short. The tables'
// contents are fixed, so a lookup's chain cannot be made long by the input.
// Private to policy/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace corral::policy {

struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const {
    std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a
    for (char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return static_cast<std::size_t>(hash);
  }
};

}  // namespace corral::policy
