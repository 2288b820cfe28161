// A std::vector whose buffer is kept for the next one of its kind on the
// same thread. The parser and the walker make a vector of words for every
// simple command; `corral check --batch` and the oracle check one line after
// another, so a buffer used once is asked for again at once. Used by
// policy/shell/ and policy/matcher/.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace corral {

template <typename T>
class ReusedVector {
 public:
  ReusedVector() {
    std::vector<std::vector<T>>& spare = Spare();
    if (!spare.empty()) {
      items_ = std::move(spare.back());
      spare.pop_back();
    }
  }
  ~ReusedVector() {
    // Only small buffers are kept, and a few: a line of a million words
    // must not hold its memory for the rest of the thread.
    std::vector<std::vector<T>>& spare = Spare();
    if (items_.capacity() == 0 || items_.capacity() > kMaxKeptCapacity ||
        spare.size() >= kMaxKept) {
      return;
    }
    items_.clear();
    spare.push_back(std::move(items_));
  }
  ReusedVector(const ReusedVector&) = delete;
  ReusedVector& operator=(const ReusedVector&) = delete;

  std::vector<T>& operator*() { return items_; }
  std::vector<T>* operator->() { return &items_; }

 private:
  static constexpr std::size_t kMaxKeptCapacity = 64;
  static constexpr std::size_t kMaxKept = 16;
  static std::vector<std::vector<T>>& Spare() {
    thread_local std::vector<std::vector<T>> spare;
    return spare;
  }
  std::vector<T> items_;
};

}  // namespace corral
