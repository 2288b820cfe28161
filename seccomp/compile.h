// A profile compiled by libseccomp. Private to seccomp/.
#pragma once

#include <seccomp.h>

#include <utility>
#include <vector>

#include "seccomp/seccomp.h"

namespace corral::seccomp {

// Owns a libseccomp filter context.
class FilterContext {
 public:
  explicit FilterContext(scmp_filter_ctx ctx) : ctx_(ctx) {}
  FilterContext(FilterContext&& other) noexcept : ctx_(other.ctx_) { other.ctx_ = nullptr; }
  FilterContext& operator=(FilterContext&& other) noexcept {
    if (this != &other) {
      if (ctx_ != nullptr) seccomp_release(ctx_);
      ctx_ = std::exchange(other.ctx_, nullptr);
    }
    return *this;
  }
  FilterContext(const FilterContext&) = delete;
  FilterContext& operator=(const FilterContext&) = delete;
  ~FilterContext() {
    if (ctx_ != nullptr) seccomp_release(ctx_);
  }
  scmp_filter_ctx get() const { return ctx_; }
  // For a call that takes the context over (seccomp_merge).
  scmp_filter_ctx Release() { return std::exchange(ctx_, nullptr); }

 private:
  scmp_filter_ctx ctx_;
};

// The profile's filter for `arches` (the profile's own, or else the host's,
// when empty), with libseccomp's binary-tree optimisation. A name is added
// only on the architectures where it exists (unknown names: BuildProfile has
// said so).
Result<FilterContext> Compile(const Profile& profile, const std::vector<Arch>& arches = {});

}  // namespace corral::seccomp
