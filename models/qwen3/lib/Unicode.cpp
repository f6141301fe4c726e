//===- Unicode.cpp - UTF-8 and NFC for the tokenizer ----------------------===//

#include "qwen3/Unicode.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

namespace qwen3 {
namespace {

struct DecompEntry {
  uint32_t cp, first, second; // second == 0: a singleton decomposition
};
struct CccEntry {
  uint32_t cp;
  uint8_t ccc;
};
struct ComposeEntry {
  uint32_t first, second, composite;
};

#include "UnicodeNFCTables.inc"

// Hangul syllables compose and decompose algorithmically (Unicode 3.12).
constexpr uint32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161,
                   kTBase = 0x11A7, kLCount = 19, kVCount = 21, kTCount = 28,
                   kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

/// Decodes the sequence at `s[i]` (valid or not); returns its length, or 0
/// when it is invalid, or -1 when it is a valid but incomplete prefix.
int decodeOne(std::string_view s, size_t i, uint32_t &cp) {
  auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t c = b(i);
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  int n;
  uint32_t min;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, cp = c & 0x1F, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, cp = c & 0x0F, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  for (int k = 1; k < n; ++k) {
    if (i + k >= s.size())
      return -1;
    uint8_t t = b(i + k);
    if ((t & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (t & 0x3F);
    // Reject overlongs, surrogates and > U+10FFFF as early as the second
    // byte, so an incomplete prefix is only reported when it can complete.
    if (k == 1) {
      uint32_t hi = cp << (6 * (n - 2));
      if ((n == 3 && (hi < 0x800 || (hi >= 0xD800 && hi <= 0xDFFF))) ||
          (n == 4 && (hi < 0x10000 || hi > 0x10FFFF)))
        return 0;
    }
  }
  if (cp < min)
    return 0;
  return n;
}

uint8_t combiningClass(uint32_t cp) {
  if (cp < 0x300)
    return 0;
  auto it = std::lower_bound(std::begin(kCcc), std::end(kCcc), cp,
                             [](const CccEntry &e, uint32_t v) { return e.cp < v; });
  return it != std::end(kCcc) && it->cp == cp ? it->ccc : 0;
}

void decompose(uint32_t cp, std::vector<uint32_t> &out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    uint32_t s = cp - kSBase;
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount)
      out.push_back(kTBase + s % kTCount);
    return;
  }
  auto it = std::lower_bound(std::begin(kDecomp), std::end(kDecomp), cp,
                             [](const DecompEntry &e, uint32_t v) { return e.cp < v; });
  if (it == std::end(kDecomp) || it->cp != cp) {
    out.push_back(cp);
    return;
  }
  decompose(it->first, out);
  if (it->second)
    decompose(it->second, out);
}

/// The primary composite of (a, b), or 0.
uint32_t compose(uint32_t a, uint32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 &&
      b > kTBase && b < kTBase + kTCount)
    return a + (b - kTBase);
  auto it = std::lower_bound(
      std::begin(kCompose), std::end(kCompose), std::make_pair(a, b),
      [](const ComposeEntry &e, std::pair<uint32_t, uint32_t> v) {
        return std::make_pair(e.first, e.second) < v;
      });
  return it != std::end(kCompose) && it->first == a && it->second == b
             ? it->composite
             : 0;
}

} // namespace

void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool isValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp;
    int n = decodeOne(s, i, cp);
    if (n <= 0)
      return false;
    i += n;
  }
  return true;
}

std::string toNfc(std::string_view s) {
  // Nothing below U+0300 changes under NFC: the common case costs one scan.
  bool quick = true;
  for (unsigned char c : s)
    if (c >= 0xCC) { // lead bytes of U+0300 and above
      quick = false;
      break;
    }
  if (quick)
    return std::string(s);

  std::vector<uint32_t> cps;
  cps.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp;
    int n = decodeOne(s, i, cp);
    if (n <= 0) { // callers validate first; keep the byte's value anyway
      cp = static_cast<uint8_t>(s[i]);
      n = 1;
    }
    decompose(cp, cps);
    i += n;
  }
  // Canonical ordering: stable sort of each run of non-starters by class.
  for (size_t i = 0; i < cps.size();) {
    if (combiningClass(cps[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < cps.size() && combiningClass(cps[j]) != 0)
      ++j;
    std::stable_sort(cps.begin() + i, cps.begin() + j,
                     [](uint32_t a, uint32_t b) {
                       return combiningClass(a) < combiningClass(b);
                     });
    i = j;
  }
  // Canonical composition.
  std::vector<uint32_t> out;
  out.reserve(cps.size());
  long starter = -1;
  int lastClass = -1;
  for (uint32_t cp : cps) {
    int cls = combiningClass(cp);
    if (starter >= 0) {
      bool blocked = lastClass != -1 && (lastClass == 0 || lastClass >= cls);
      // Adjacent to the starter (lastClass == -1) or not blocked.
      if (!blocked || lastClass == -1) {
        if (uint32_t c = compose(out[starter], cp)) {
          out[starter] = c;
          continue;
        }
      }
    }
    if (cls == 0) {
      starter = static_cast<long>(out.size());
      lastClass = -1;
    } else {
      lastClass = cls;
    }
    out.push_back(cp);
  }
  std::string result;
  result.reserve(s.size());
  for (uint32_t cp : out)
    appendUtf8(result, cp);
  return result;
}

std::string Utf8Stream::feed(std::string_view bytes) {
  pending_.append(bytes);
  std::string out;
  size_t i = 0;
  while (i < pending_.size()) {
    uint32_t cp;
    int n = decodeOne(pending_, i, cp);
    if (n < 0)
      break; // incomplete: wait for more
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(pending_, i, n);
    i += n;
  }
  pending_.erase(0, i);
  return out;
}

std::string Utf8Stream::finish() {
  std::string out = pending_.empty() ? "" : "\xEF\xBF\xBD";
  pending_.clear();
  return out;
}

} // namespace qwen3
