//===- Lexer.cpp - tokens of the .tile language ---------------------------===//

#include "Lexer.h"

#include "llvm/ADT/StringExtras.h"

#include <cerrno>
#include <cstdlib>

using namespace tile::lang;

Token Lexer::next() {
  // Whitespace and comments.
  while (pos < buffer.size()) {
    char c = buffer[pos];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++pos;
    } else if (buffer.substr(pos).starts_with("//")) {
      while (pos < buffer.size() && buffer[pos] != '\n')
        ++pos;
    } else {
      break;
    }
  }
  Token t;
  t.loc = llvm::SMLoc::getFromPointer(buffer.data() + pos);
  if (pos >= buffer.size())
    return t;
  size_t start = pos;
  char c = buffer[pos];
  auto error = [&](std::string message) {
    t.kind = Token::Kind::Error;
    t.error = std::move(message);
    t.text = buffer.substr(start, std::max<size_t>(1, pos - start));
    return t;
  };
  if (llvm::isAlpha(c) || c == '_') {
    while (pos < buffer.size() &&
           (llvm::isAlnum(buffer[pos]) || buffer[pos] == '_'))
      ++pos;
    t.kind = Token::Kind::Ident;
    t.text = buffer.substr(start, pos - start);
    return t;
  }
  if (llvm::isDigit(c)) {
    while (pos < buffer.size() &&
           (llvm::isAlnum(buffer[pos]) || buffer[pos] == '_'))
      ++pos;
    bool isFloat = false;
    // A fraction, but not the `..` of a range.
    if (pos + 1 < buffer.size() && buffer[pos] == '.' &&
        llvm::isDigit(buffer[pos + 1])) {
      isFloat = true;
      ++pos;
      while (pos < buffer.size() && llvm::isDigit(buffer[pos]))
        ++pos;
    }
    if (pos < buffer.size() && (buffer[pos] == 'e' || buffer[pos] == 'E') &&
        !buffer.substr(start, pos - start).starts_with("0x")) {
      isFloat = true;
    }
    if (isFloat && pos < buffer.size() &&
        (buffer[pos] == 'e' || buffer[pos] == 'E')) {
      ++pos;
      if (pos < buffer.size() && (buffer[pos] == '+' || buffer[pos] == '-'))
        ++pos;
      if (pos >= buffer.size() || !llvm::isDigit(buffer[pos]))
        return error("malformed float literal");
      while (pos < buffer.size() && llvm::isDigit(buffer[pos]))
        ++pos;
    }
    std::string spelling = buffer.substr(start, pos - start).str();
    llvm::erase(spelling, '_');
    t.text = buffer.substr(start, pos - start);
    if (isFloat) {
      char *end = nullptr;
      errno = 0;
      t.floatValue = std::strtod(spelling.c_str(), &end);
      if (end != spelling.c_str() + spelling.size() || errno == ERANGE)
        return error("malformed float literal '" + spelling + "'");
      t.kind = Token::Kind::Float;
      return t;
    }
    unsigned long long v;
    if (llvm::StringRef(spelling).getAsInteger(0, v) ||
        v > static_cast<unsigned long long>(INT64_MAX))
      return error("malformed or too large integer literal '" + spelling + "'");
    t.kind = Token::Kind::Int;
    t.intValue = static_cast<int64_t>(v);
    return t;
  }
  if (c == '"') {
    ++pos;
    while (pos < buffer.size() && buffer[pos] != '"' && buffer[pos] != '\n')
      ++pos;
    if (pos >= buffer.size() || buffer[pos] != '"')
      return error("unterminated string");
    t.kind = Token::Kind::String;
    t.text = buffer.substr(start + 1, pos - start - 1);
    ++pos;
    return t;
  }
  static const char *twoChar[] = {"..", "->", "==", "!=", "<=", ">=", "&&",
                                  "||", "<<", ">>"};
  for (const char *p : twoChar)
    if (buffer.substr(pos).starts_with(p)) {
      pos += 2;
      t.kind = Token::Kind::Punct;
      t.text = buffer.substr(start, 2);
      return t;
    }
  if (llvm::StringRef("+-*/%<>=!&|^()[]{},;:.?").contains(c)) {
    ++pos;
    t.kind = Token::Kind::Punct;
    t.text = buffer.substr(start, 1);
    return t;
  }
  ++pos;
  if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
    return error(std::string("unexpected character '") + c + "'");
  return error("unexpected byte 0x" +
               llvm::utohexstr(static_cast<unsigned char>(c)));
}
