// A profile compiled by libseccomp. Private to seccomp/.
#pragma once

#include <seccomp.h>

#include <vector>

#include "seccomp/seccomp.h"

namespace corral::seccomp {

// Owns a libseccomp filter context.
class FilterContext {
 public:
  explicit FilterContext(scmp_filter_ctx ctx) : ctx_(ctx) {}
  FilterContext(FilterContext&& other) noexcept : ctx_(other.ctx_) { other.ctx_ = nullptr; }
  FilterContext& operator=(FilterContext&& other) noexcept {
    std::swap(ctx_, other.ctx_);
    return *this;
  }
  FilterContext(const FilterContext&) = delete;
  FilterContext& operator=(const FilterContext&) = delete;
  ~FilterContext() {
    if (ctx_ != nullptr) seccomp_release(ctx_);
  }
  scmp_filter_ctx get() const { return ctx_; }

 private:
  scmp_filter_ctx ctx_;
};

// The profile's filter for `arches` (the profile's own when empty), with
// libseccomp's binary-tree optimisation. Names unknown to libseccomp are
// skipped (BuildProfile has said so).
Result<FilterContext> Compile(const Profile& profile, const std::vector<Arch>& arches = {});

}  // namespace corral::seccomp
