//===- Tokenizer.h - Qwen3's byte-level BPE tokenizer -----------*- C++ -*-===//
//
// Reads a Hugging Face `tokenizer.json` of Qwen2/Qwen3 form and reproduces
// `tokenizers`: added tokens are matched first (leftmost, longest), the text
// between them is NFC-normalized, split by the pre-tokenizer's regex (PCRE2,
// Unicode properties), mapped to byte-level symbols and merged by BPE rank.
// Decoding maps symbols back to bytes; Utf8Stream turns them into text.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_TOKENIZER_H
#define QWEN3_TOKENIZER_H

#include "tile/runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace qwen3 {

using tile_runtime::Status;

class Tokenizer {
public:
  Tokenizer();
  ~Tokenizer();
  Tokenizer(Tokenizer &&) noexcept;
  Tokenizer &operator=(Tokenizer &&) noexcept;

  /// Loads `path` (a tokenizer.json). Errors name the file and the field.
  static Status load(const std::string &path, Tokenizer &tokenizer);
  /// The same from the file's contents; `name` is used in messages.
  static Status parse(std::string_view json, const std::string &name,
                      Tokenizer &tokenizer);

  /// Token ids of `text` (no special tokens added). The text must be valid
  /// UTF-8; the error says where it is not.
  Status encode(std::string_view text, std::vector<int32_t> &ids) const;

  /// The bytes token `id` stands for (added tokens: their text); empty for
  /// an id outside the vocabulary.
  const std::string &tokenBytes(int32_t id) const;
  /// The text of `ids` (invalid UTF-8 replaced by U+FFFD).
  std::string decode(const std::vector<int32_t> &ids) const;

  /// The id of an added or vocabulary token given by its text, or -1.
  int32_t tokenId(std::string_view token) const;
  /// One past the largest id.
  int32_t vocabSize() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace qwen3

#endif // QWEN3_TOKENIZER_H
