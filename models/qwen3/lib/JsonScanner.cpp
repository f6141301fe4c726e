//===- JsonScanner.cpp - a fast pull reader for big JSON tables -----------===//

#include "JsonScanner.h"

#include "qwen3/Unicode.h"

namespace qwen3 {

bool JsonScanner::readHex4(uint32_t &v) {
  if (i_ + 4 > s_.size())
    return fail("truncated \\u escape");
  v = 0;
  for (int k = 0; k < 4; ++k) {
    char c = s_[i_++];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= c - '0';
    else if (c >= 'a' && c <= 'f')
      v |= c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      v |= c - 'A' + 10;
    else
      return fail("bad \\u escape");
  }
  return true;
}

bool JsonScanner::readString(std::string &out) {
  if (!expect('"'))
    return false;
  out.clear();
  while (true) {
    // Copy the run up to the next quote or escape in one go.
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '"' && s_[i_] != '\\') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20)
        return fail("control character in a string");
      ++i_;
    }
    out.append(s_.data() + start, i_ - start);
    if (i_ >= s_.size())
      return fail("unterminated string");
    if (s_[i_++] == '"')
      return true;
    if (i_ >= s_.size())
      return fail("unterminated escape");
    char e = s_[i_++];
    switch (e) {
    case '"': out += '"'; break;
    case '\\': out += '\\'; break;
    case '/': out += '/'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'u': {
      uint32_t cp;
      if (!readHex4(cp))
        return false;
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t lo;
        if (i_ + 2 > s_.size() || s_[i_] != '\\' || s_[i_ + 1] != 'u')
          return fail("unpaired surrogate escape");
        i_ += 2;
        if (!readHex4(lo))
          return false;
        if (lo < 0xDC00 || lo > 0xDFFF)
          return fail("unpaired surrogate escape");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return fail("unpaired surrogate escape");
      }
      appendUtf8(out, cp);
      break;
    }
    default:
      return fail("bad escape");
    }
  }
}

bool JsonScanner::readInt(int64_t &out) {
  skipWs();
  bool neg = accept('-');
  if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9')
    return fail("expected an integer");
  int64_t v = 0;
  int digits = 0;
  while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
    if (++digits > 18)
      return fail("integer too large");
    v = v * 10 + (s_[i_++] - '0');
  }
  if (i_ < s_.size() && (s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E'))
    return fail("expected an integer");
  out = neg ? -v : v;
  return true;
}

bool JsonScanner::skipValue(std::string_view &span) {
  skipWs();
  size_t start = i_;
  int depth = 0;
  std::string scratch;
  do {
    skipWs();
    if (i_ >= s_.size())
      return fail("truncated value");
    char c = s_[i_];
    if (c == '"') {
      if (!readString(scratch))
        return false;
    } else if (c == '{' || c == '[') {
      if (++depth > 256)
        return fail("nesting too deep");
      ++i_;
      continue;
    } else if (c == '}' || c == ']') {
      if (depth == 0)
        return fail("unbalanced bracket");
      --depth;
      ++i_;
    } else if (c == ',' || c == ':') {
      if (depth == 0)
        return fail("unexpected separator");
      ++i_;
      continue;
    } else {
      // A literal: number, true, false, null.
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' &&
             s_[i_] != ']' && s_[i_] != ' ' && s_[i_] != '\n' &&
             s_[i_] != '\r' && s_[i_] != '\t' && s_[i_] != ':')
        ++i_;
    }
  } while (depth > 0);
  span = s_.substr(start, i_ - start);
  return true;
}

} // namespace qwen3
