#pragma once

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace corral {

// An error crossing a folder boundary: an errno (0 when none applies) and a
// message a user can act on. Context is prepended as it travels up.
struct Error {
  int code = 0;
  std::string message;

  Error() = default;
  explicit Error(std::string msg, int errno_value = 0)
      : code(errno_value), message(std::move(msg)) {}

  // "what: message", so the outermost context reads first.
  Error Context(std::string_view what) const {
    return Error(std::string(what) + ": " + message, code);
  }

  // An error from a failed system call, with strerror appended.
  static Error FromErrno(std::string_view what, int errno_value = errno) {
    return Error(std::string(what) + ": " + std::strerror(errno_value), errno_value);
  }
};

// Expected-style result: holds a T or an Error. No exception crosses a
// folder's public header; functions that can fail return one of these.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

  // The value, or `fallback` where the caller takes any error to mean "none"
  // (a cache that cannot be read is an empty one).
  template <class U>
  T value_or(U&& fallback) && {
    return ok() ? std::move(value()) : T(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Result<void> Ok() { return {}; }

}  // namespace corral
