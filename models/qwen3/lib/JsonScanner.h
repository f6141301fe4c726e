//===- JsonScanner.h - a fast pull reader for big JSON tables ---*- C++ -*-===//
//
// tokenizer.json is 11 MB, almost all of it the vocabulary (151k string ->
// int) and the merges (151k pairs). A DOM parse of it builds a node for
// every one of those entries only for them to be copied out again, and is
// slow; this scanner reads those two tables straight into the tokenizer's
// structures and hands every other (small) value to nlohmann::json as a
// substring.
// Strict: every read is bounds-checked and an error names the offset.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_JSONSCANNER_H
#define QWEN3_JSONSCANNER_H

#include <cstdint>
#include <string>
#include <string_view>

namespace qwen3 {

class JsonScanner {
public:
  explicit JsonScanner(std::string_view text) : s_(text) {}

  bool failed() const { return !error_.empty(); }
  const std::string &error() const { return error_; }
  size_t offset() const { return i_; }
  bool atEnd() {
    skipWs();
    return i_ >= s_.size();
  }

  /// Consumes `c` (after whitespace) or fails.
  bool expect(char c) {
    skipWs();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return fail(std::string("expected '") + c + "'");
  }
  /// Consumes `c` if it is next.
  bool accept(char c) {
    skipWs();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  /// Reads a string literal into `out` (escapes decoded to UTF-8).
  bool readString(std::string &out);
  /// Reads an integer literal.
  bool readInt(int64_t &out);
  /// Skips any value; `span` is its text.
  bool skipValue(std::string_view &span);

  bool fail(const std::string &what) {
    if (error_.empty())
      error_ = what + " at byte " + std::to_string(i_);
    return false;
  }

private:
  void skipWs() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' ||
                              s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  bool readHex4(uint32_t &v);

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
};

} // namespace qwen3

#endif // QWEN3_JSONSCANNER_H
