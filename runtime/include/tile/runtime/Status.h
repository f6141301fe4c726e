//===- Status.h - error values of the runtime -------------------*- C++ -*-===//
//
// The runtime reports failures as values, never by aborting: a Status is
// either ok or carries a one-line message naming what failed.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_STATUS_H
#define TILE_RUNTIME_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace tile_runtime {

class [[nodiscard]] Status {
public:
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    return s;
  }
  bool isOk() const { return !message_.has_value(); }
  explicit operator bool() const { return isOk(); }
  const std::string &message() const {
    static const std::string empty;
    return message_ ? *message_ : empty;
  }

private:
  std::optional<std::string> message_;
};

} // namespace tile_runtime

#endif // TILE_RUNTIME_STATUS_H
