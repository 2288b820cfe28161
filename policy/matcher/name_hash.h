// Lookups in the matcher's fixed tables of program names (handler kinds,
// wrappers, dangerous commands, the deny list's commands). They are asked
// several times for every command a line runs; std::hash's out-of-line
// murmur and unordered_map's prime modulo and node chasing cost more than
// the comparison for names this short. The tables' contents are fixed, so
// the input cannot make a lookup's probe sequence long. Private to policy/matcher/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace corral::policy {

// Eight bytes at a time (a byte loop's multiply chain was most of a
// lookup): a short name is read by two overlapping loads, as wyhash does.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const {
    const char* p = name.data();
    std::size_t n = name.size();
    std::uint64_t hash = 0x9e3779b97f4a7c15ull ^ n;
    auto mix = [&hash](std::uint64_t word) {
      hash = (hash ^ word) * 0xff51afd7ed558ccdull;
      hash ^= hash >> 32;
    };
    if (n >= 8) {
      for (std::size_t i = 0; i + 8 < n; i += 8) mix(Load<std::uint64_t>(p + i));
      mix(Load<std::uint64_t>(p + n - 8));
    } else if (n >= 4) {
      mix(std::uint64_t{Load<std::uint32_t>(p)} << 32 | Load<std::uint32_t>(p + n - 4));
    } else if (n > 0) {
      auto byte = [p](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(p[i])}; };
      mix(byte(0) << 16 | byte(n / 2) << 8 | byte(n - 1));
    }
    return static_cast<std::size_t>(hash);
  }

 private:
  template <typename Word>
  static Word Load(const char* p) {
    Word word;
    std::memcpy(&word, p, sizeof word);
    return word;
  }
};

// Names (views of text that outlives the table) to values: open addressing,
// a power-of-two size at most a quarter full (a name in no table, the usual
// question, then meets another name rarely). A name added twice keeps its first
// value, as unordered_map::emplace does.
template <typename Value>
class NameTable {
 public:
  void Add(std::string_view name, Value value) {
    if ((used_ + 1) * 4 > slots_.size()) Grow();
    std::size_t hash = NameHash{}(name);
    Slot& slot = Place(slots_, name, hash);
    if (slot.used) return;
    slot = {name, hash, value, true};
    ++used_;
  }
  const Value* Find(std::string_view name) const {
    if (slots_.empty()) return nullptr;
    std::size_t mask = slots_.size() - 1;
    std::size_t hash = NameHash{}(name);
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (!slot.used) return nullptr;
      // The hash first: most names asked for are in no table, and a slot
      // holding another name is then passed over without comparing bytes.
      if (slot.hash == hash && slot.name == name) return &slot.value;
    }
  }

 private:
  struct Slot {
    std::string_view name;
    std::size_t hash = 0;
    Value value{};
    bool used = false;
  };
  static Slot& Place(std::vector<Slot>& slots, std::string_view name, std::size_t hash) {
    std::size_t mask = slots.size() - 1;
    std::size_t i = hash & mask;
    while (slots[i].used && slots[i].name != name) i = (i + 1) & mask;
    return slots[i];
  }
  void Grow() {
    std::vector<Slot> bigger(slots_.empty() ? 16 : slots_.size() * 2);
    for (const Slot& slot : slots_) {
      if (slot.used) Place(bigger, slot.name, slot.hash) = slot;
    }
    slots_.swap(bigger);
  }
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace corral::policy
