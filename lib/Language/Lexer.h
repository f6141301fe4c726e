//===- Lexer.h - tokens of the .tile language -------------------*- C++ -*-===//

#ifndef LIB_LANGUAGE_LEXER_H
#define LIB_LANGUAGE_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>

namespace tile::lang {

struct Token {
  enum class Kind { Eof, Error, Ident, Int, Float, String, Punct };
  Kind kind = Kind::Eof;
  llvm::StringRef text; ///< the spelling (for String: without quotes)
  llvm::SMLoc loc;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string error; ///< for Error tokens
};

/// Splits a buffer into tokens: identifiers and keywords, integer and float
/// literals, "strings", and punctuation (longest match: `..`, `->`, `==`,
/// `!=`, `<=`, `>=`, `&&`, `||`, then single characters). `//` comments and
/// whitespace are skipped.
class Lexer {
public:
  explicit Lexer(llvm::StringRef buffer) : buffer(buffer), pos(0) {}
  Token next();

private:
  llvm::StringRef buffer;
  size_t pos;
};

} // namespace tile::lang

#endif // LIB_LANGUAGE_LEXER_H
