//===- Unicode.h - UTF-8 and NFC for the tokenizer --------------*- C++ -*-===//
//
// What the Qwen3 tokenizer needs from Unicode: UTF-8 validation, NFC
// normalization (its tokenizer.json normalizer), and a streaming decoder that
// only ever emits complete, valid UTF-8.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_UNICODE_H
#define QWEN3_UNICODE_H

#include <cstdint>
#include <string>
#include <string_view>

namespace qwen3 {

/// Appends the UTF-8 encoding of code point `cp` (<= U+10FFFF).
void appendUtf8(std::string &out, uint32_t cp);

/// True when `s` is well-formed UTF-8 (no overlongs, surrogates or values
/// past U+10FFFF).
bool isValidUtf8(std::string_view s);

/// The NFC form of valid UTF-8 `s` (Unicode canonical composition).
std::string toNfc(std::string_view s);

/// Turns a byte stream cut at arbitrary points into valid UTF-8: complete
/// sequences pass through, an incomplete tail waits for the next bytes,
/// invalid bytes become U+FFFD (as `bytes.decode(errors="replace")`).
class Utf8Stream {
public:
  /// The text that is complete after appending `bytes`.
  std::string feed(std::string_view bytes);
  /// Whatever is still held (an incomplete tail becomes U+FFFD).
  std::string finish();

private:
  std::string pending_;
};

} // namespace qwen3

#endif // QWEN3_UNICODE_H
