//===- Tokenizer.cpp - Qwen3's byte-level BPE tokenizer -------------------===//

#include "qwen3/Tokenizer.h"

#include "JsonText.h"

#include "tile/runtime/Files.h"

#include "JsonScanner.h"
#include "qwen3/Unicode.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <fstream>
#include <queue>

namespace qwen3 {
namespace {

/// GPT-2's byte-level alphabet: printable bytes spell themselves, the rest
/// U+0100 onwards, so every byte is a visible character. Returns the UTF-8
/// spelling of each byte.
std::array<std::string, 256> byteSpellings() {
  std::array<std::string, 256> spelling;
  uint32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) ||
                     (b >= 174 && b <= 255);
    appendUtf8(spelling[b], printable ? b : next++);
  }
  return spelling;
}

/// The vocabulary: byte-level spelling -> id, the spellings in one arena and
/// the slots in one open-addressed array (linear probing, power-of-two size).
/// Loading 151k entries into std::unordered_map cost a node and a string per
/// entry and most of the tokenizer's load time.
class SpellingTable {
public:
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n)
      cap <<= 1;
    slots.assign(cap, Slot{});
    arena.reserve(n * 8);
  }
  /// False if the spelling is already present.
  bool insert(std::string_view s, int32_t id) {
    if (2 * (count + 1) > slots.size())
      grow();
    uint64_t h = hash(s);
    size_t i = find(s, h);
    if (slots[i].id >= 0)
      return false;
    slots[i] = {static_cast<uint32_t>(arena.size()), static_cast<uint32_t>(s.size()),
                id, static_cast<uint32_t>(h)};
    arena.append(s);
    ++count;
    return true;
  }
  int32_t lookup(std::string_view s) const {
    if (slots.empty())
      return -1;
    return slots[find(s, hash(s))].id;
  }
  template <typename F> void forEach(F f) const {
    for (const Slot &e : slots)
      if (e.id >= 0)
        f(std::string_view(arena).substr(e.offset, e.length), e.id);
  }

private:
  struct Slot {
    uint32_t offset = 0, length = 0;
    int32_t id = -1;
    uint32_t hash = 0;
  };
  static uint64_t hash(std::string_view s) { // FNV-1a
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s)
      h = (h ^ c) * 1099511628211ull;
    return h ^ (h >> 29);
  }
  size_t find(std::string_view s, uint64_t h) const {
    size_t mask = slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot &e = slots[i];
      if (e.id < 0 || (e.hash == static_cast<uint32_t>(h) && e.length == s.size() &&
                       std::string_view(arena).substr(e.offset, e.length) == s))
        return i;
    }
  }
  void grow() {
    std::vector<Slot> old = std::move(slots);
    slots.assign(std::max<size_t>(16, old.size() * 2), Slot{});
    size_t mask = slots.size() - 1;
    for (const Slot &e : old)
      if (e.id >= 0) {
        size_t i = e.hash & mask;
        // The stored hash is the low 32 bits; masks stay below 2^32 slots.
        while (slots[i].id >= 0)
          i = (i + 1) & mask;
        slots[i] = e;
      }
  }
  std::vector<Slot> slots;
  std::string arena;
  size_t count = 0;
};

/// The merges: (left id, right id) -> (rank, merged id), open-addressed.
class MergeTable {
public:
  struct Merge {
    int32_t rank = -1, id = -1;
  };
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n)
      cap <<= 1;
    keys.assign(cap, kEmpty);
    values.assign(cap, Merge{});
  }
  /// Keeps the first (lowest-rank) entry of a repeated pair, as HF does.
  void insert(int32_t left, int32_t right, Merge m) {
    uint64_t k = key(left, right);
    size_t i = slot(k);
    if (keys[i] == kEmpty) {
      keys[i] = k;
      values[i] = m;
    }
  }
  const Merge *find(int32_t left, int32_t right) const {
    if (keys.empty())
      return nullptr;
    uint64_t k = key(left, right);
    size_t i = slot(k);
    return keys[i] == k ? &values[i] : nullptr;
  }

private:
  static constexpr uint64_t kEmpty = ~0ull;
  static uint64_t key(int32_t l, int32_t r) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(l)) << 32) | static_cast<uint32_t>(r);
  }
  size_t slot(uint64_t k) const {
    size_t mask = keys.size() - 1;
    uint64_t h = k * 0x9e3779b97f4a7c15ull;
    for (size_t i = (h >> 32) & mask;; i = (i + 1) & mask)
      if (keys[i] == k || keys[i] == kEmpty)
        return i;
  }
  std::vector<uint64_t> keys;
  std::vector<Merge> values;
};

struct PcreCodeDeleter {
  void operator()(pcre2_code *c) const { pcre2_code_free(c); }
};

} // namespace

struct Tokenizer::Impl {
  SpellingTable vocab; // byte-level spelling -> id
  std::vector<std::string> idBytes;               // id -> raw bytes
  struct Added {
    std::string content;
    int32_t id;
  };
  std::vector<Added> added; // longest first
  std::array<bool, 256> addedLead{};
  std::array<int32_t, 256> byteToken{};
  std::array<std::string, 256> byteSpelling = byteSpellings();
  MergeTable merges;
  std::unique_ptr<pcre2_code, PcreCodeDeleter> regex;
  bool jit = false;
  bool nfc = false;

  void bpe(const char *p, size_t n, std::vector<int32_t> &ids) const;
};

Tokenizer::Tokenizer() : impl(std::make_unique<Impl>()) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer &&) noexcept = default;
Tokenizer &Tokenizer::operator=(Tokenizer &&) noexcept = default;

Status Tokenizer::load(const std::string &path, Tokenizer &tokenizer) {
  std::string text;
  if (Status st = tile_runtime::readFile(path, text); !st)
    return st;
  return parse(text, path, tokenizer);
}

namespace {

// nlohmann's value(key, default) throws when the key holds another type
// ({"type": false} aborted the fuzzer); these read a field without throwing.

/// obj[key] where it is a string; "" where absent or of another type, so a
/// comparison with the expected name fails with the field's error.
std::string stringField(const nlohmann::json &obj, const char *key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

/// Whether obj[key] is present and the boolean false.
bool isFalse(const nlohmann::json &obj, const char *key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && !it->get<bool>();
}

/// Whether obj[key] is present and anything but false (a flag that is set,
/// or a value that is not a flag at all).
bool flagSet(const nlohmann::json &obj, const char *key) {
  return obj.contains(key) && !isFalse(obj, key);
}

/// The fields of the small JSON values, checked; errors name the field.
Status checkPipeline(const nlohmann::json &normalizer,
                     const nlohmann::json &preTokenizer,
                     const nlohmann::json &decoder, const std::string &name,
                     bool &nfc, std::string &pattern) {
  auto err = [&](const std::string &what) {
    return Status::error(name + ": " + what);
  };
  if (normalizer.is_null()) {
    nfc = false;
  } else if (normalizer.is_object() && stringField(normalizer, "type") == "NFC") {
    nfc = true;
  } else {
    return err("unsupported normalizer " + describeJson(normalizer) +
               " (this tokenizer reads NFC or none)");
  }
  // Qwen2/Qwen3: Sequence[Split(Regex, Isolated), ByteLevel(use_regex=false)].
  const char *want = "pre_tokenizer: expected Sequence[Split(Regex, "
                     "Isolated), ByteLevel(use_regex=false)]";
  if (!preTokenizer.is_object() ||
      stringField(preTokenizer, "type") != "Sequence" ||
      !preTokenizer.contains("pretokenizers") ||
      !preTokenizer["pretokenizers"].is_array() ||
      preTokenizer["pretokenizers"].size() != 2)
    return err(want);
  const auto &split = preTokenizer["pretokenizers"][0];
  const auto &bytes = preTokenizer["pretokenizers"][1];
  if (!split.is_object() || stringField(split, "type") != "Split" ||
      stringField(split, "behavior") != "Isolated" ||
      !isFalse(split, "invert") || !split.contains("pattern") ||
      !split["pattern"].is_object() || !split["pattern"].contains("Regex") ||
      !split["pattern"]["Regex"].is_string())
    return err(want);
  if (!bytes.is_object() || stringField(bytes, "type") != "ByteLevel" ||
      !isFalse(bytes, "use_regex") || !isFalse(bytes, "add_prefix_space"))
    return err(want);
  pattern = split["pattern"]["Regex"].get<std::string>();
  if (!decoder.is_object() || stringField(decoder, "type") != "ByteLevel")
    return err("decoder: expected ByteLevel");
  return Status::ok();
}

} // namespace

Status Tokenizer::parse(std::string_view json, const std::string &name,
                        Tokenizer &tokenizer) {
  auto impl = std::make_unique<Impl>();
  auto err = [&](const std::string &what) {
    return Status::error(name + ": " + what);
  };
  JsonScanner js(json);
  nlohmann::json addedJson, normalizer, preTokenizer, decoder;
  bool haveModel = false, haveVocab = false, haveMerges = false;
  std::vector<std::pair<std::string, std::string>> mergeList;
  std::string key, modelType;

  auto parseSmall = [&](const std::string &field, nlohmann::json &out) -> Status {
    std::string_view span;
    if (!js.skipValue(span))
      return err(field + ": " + js.error());
    out = nlohmann::json::parse(span, nullptr, /*allow_exceptions=*/false);
    if (out.is_discarded())
      return err(field + ": malformed JSON");
    return Status::ok();
  };

  if (!js.expect('{'))
    return err(js.error());
  bool first = true;
  while (!js.accept('}')) {
    if (!first && !js.expect(','))
      return err(js.error());
    first = false;
    if (!js.readString(key) || !js.expect(':'))
      return err(js.error());
    Status st = Status::ok();
    if (key == "added_tokens") {
      st = parseSmall(key, addedJson);
    } else if (key == "normalizer") {
      st = parseSmall(key, normalizer);
    } else if (key == "pre_tokenizer") {
      st = parseSmall(key, preTokenizer);
    } else if (key == "decoder") {
      st = parseSmall(key, decoder);
    } else if (key == "model") {
      haveModel = true;
      if (!js.expect('{'))
        return err("model: " + js.error());
      bool firstField = true;
      while (!js.accept('}')) {
        if (!firstField && !js.expect(','))
          return err("model: " + js.error());
        firstField = false;
        if (!js.readString(key) || !js.expect(':'))
          return err("model: " + js.error());
        if (key == "vocab") {
          haveVocab = true;
          impl->vocab.reserve(1 << 18); // Qwen's 151k; grows past it
          if (!js.expect('{'))
            return err("model.vocab: " + js.error());
          std::string tok;
          bool firstTok = true;
          while (!js.accept('}')) {
            int64_t id;
            if ((!firstTok && !js.expect(',')) || !js.readString(tok) ||
                !js.expect(':') || !js.readInt(id))
              return err("model.vocab: " + js.error());
            firstTok = false;
            if (id < 0 || id >= (1 << 24))
              return err("model.vocab: id " + std::to_string(id) +
                         " of '" + tok + "' out of range");
            if (!impl->vocab.insert(tok, static_cast<int32_t>(id)))
              return err("model.vocab: '" + tok + "' appears twice");
          }
        } else if (key == "merges") {
          haveMerges = true;
          if (!js.expect('['))
            return err("model.merges: " + js.error());
          std::string a, b;
          bool firstMerge = true;
          while (!js.accept(']')) {
            if (!firstMerge && !js.expect(','))
              return err("model.merges: " + js.error());
            firstMerge = false;
            if (js.accept('[')) { // ["a", "b"]
              if (!js.readString(a) || !js.expect(',') || !js.readString(b) ||
                  !js.expect(']'))
                return err("model.merges: " + js.error());
            } else { // "a b" (the older form)
              if (!js.readString(a))
                return err("model.merges: " + js.error());
              size_t sp = a.find(' ');
              if (sp == std::string::npos || sp == 0 || sp + 1 >= a.size())
                return err("model.merges: entry " +
                           std::to_string(mergeList.size()) +
                           " is not 'left right'");
              b = a.substr(sp + 1);
              a.resize(sp);
            }
            mergeList.emplace_back(a, b);
          }
        } else if (key == "type") {
          nlohmann::json t;
          if (Status s = parseSmall("model.type", t); !s)
            return s;
          modelType = t.is_string() ? t.get<std::string>() : "";
        } else {
          std::string_view span;
          if (!js.skipValue(span))
            return err("model." + key + ": " + js.error());
          // Options that change the algorithm must be what BPE here does.
          if (key == "byte_fallback" || key == "ignore_merges") {
            if (span != "false")
              return err("model." + key + ": only false is supported");
          } else if (key == "dropout") {
            if (span != "null")
              return err("model.dropout: only null is supported");
          }
        }
      }
    } else {
      std::string_view span;
      st = js.skipValue(span) ? Status::ok() : err(key + ": " + js.error());
    }
    if (!st)
      return st;
  }
  if (!js.atEnd())
    return err("trailing data after the JSON object");
  if (!haveModel || !haveVocab || !haveMerges)
    return err("missing model.vocab or model.merges");
  if (modelType != "BPE")
    return err("model.type: expected BPE");
  std::string pattern;
  if (Status st = checkPipeline(normalizer, preTokenizer, decoder, name,
                                impl->nfc, pattern);
      !st)
    return st;

  // Byte-level spellings -> raw bytes. Every spelling character is below
  // U+0144 (the alphabet's 256 characters), so a code point table decodes.
  std::array<int16_t, 0x144> charToByte;
  charToByte.fill(-1);
  for (int b = 0; b < 256; ++b) {
    const std::string &sp = impl->byteSpelling[b];
    uint32_t cp = sp.size() == 1 ? static_cast<uint8_t>(sp[0])
                                 : ((static_cast<uint8_t>(sp[0]) & 0x1f) << 6) |
                                       (static_cast<uint8_t>(sp[1]) & 0x3f);
    charToByte[cp] = static_cast<int16_t>(b);
  }
  int32_t maxId = -1;
  impl->vocab.forEach([&](std::string_view, int32_t id) { maxId = std::max(maxId, id); });
  impl->idBytes.assign(maxId + 1, std::string());
  std::string badSpelling;
  impl->vocab.forEach([&](std::string_view tok, int32_t id) {
    std::string &raw = impl->idBytes[id];
    raw.reserve(tok.size());
    for (size_t i = 0; i < tok.size();) {
      uint8_t c = static_cast<uint8_t>(tok[i]);
      int b = -1;
      if (c < 0x80) {
        b = charToByte[c];
        i += 1;
      } else if ((c & 0xe0) == 0xc0 && i + 1 < tok.size()) {
        uint32_t cp = ((c & 0x1f) << 6) | (static_cast<uint8_t>(tok[i + 1]) & 0x3f);
        b = cp < charToByte.size() ? charToByte[cp] : -1;
        i += 2;
      } else {
        i = tok.size();
      }
      if (b < 0) {
        if (badSpelling.empty())
          badSpelling = std::string(tok);
        return;
      }
      raw += static_cast<char>(b);
    }
  });
  if (!badSpelling.empty())
    return err("model.vocab: '" + badSpelling +
               "' is not spelled in the byte-level alphabet");
  for (int b = 0; b < 256; ++b) {
    int32_t id = impl->vocab.lookup(impl->byteSpelling[b]);
    if (id < 0)
      return err("model.vocab: byte " + std::to_string(b) + " has no token");
    impl->byteToken[b] = id;
  }
  impl->merges.reserve(mergeList.size());
  std::string joined;
  for (size_t r = 0; r < mergeList.size(); ++r) {
    auto &[a, b] = mergeList[r];
    joined.assign(a).append(b);
    int32_t ia = impl->vocab.lookup(a), ib = impl->vocab.lookup(b),
            im = impl->vocab.lookup(joined);
    if (ia < 0 || ib < 0 || im < 0)
      return err("model.merges: entry " + std::to_string(r) + " ('" + a +
                 "' '" + b + "') names a token not in the vocabulary");
    impl->merges.insert(ia, ib, {static_cast<int32_t>(r), im});
  }

  // Added tokens: matched verbatim before anything else.
  if (!addedJson.is_null()) {
    if (!addedJson.is_array())
      return err("added_tokens: expected a list");
    for (size_t i = 0; i < addedJson.size(); ++i) {
      const auto &t = addedJson[i];
      std::string where = "added_tokens[" + std::to_string(i) + "]";
      if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() ||
          !t.contains("content") || !t["content"].is_string())
        return err(where + ": needs an integer id and a string content");
      int64_t id = t["id"].get<int64_t>();
      std::string content = t["content"].get<std::string>();
      if (id < 0 || id >= (1 << 24) || content.empty())
        return err(where + ": bad id or empty content");
      if (flagSet(t, "lstrip") || flagSet(t, "rstrip") ||
          flagSet(t, "single_word") || flagSet(t, "normalized"))
        return err(where + ": lstrip/rstrip/single_word/normalized are not "
                           "supported");
      if (id >= static_cast<int64_t>(impl->idBytes.size()))
        impl->idBytes.resize(id + 1);
      impl->idBytes[id] = content;
      impl->added.push_back({content, static_cast<int32_t>(id)});
      impl->addedLead[static_cast<uint8_t>(content[0])] = true;
    }
    std::stable_sort(impl->added.begin(), impl->added.end(),
                     [](const Impl::Added &a, const Impl::Added &b) {
                       return a.content.size() > b.content.size();
                     });
  }

  int errorCode;
  PCRE2_SIZE errorOffset;
  pcre2_code *code = pcre2_compile(
      reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
      PCRE2_UTF | PCRE2_UCP, &errorCode, &errorOffset, nullptr);
  if (!code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(errorCode, msg, sizeof(msg));
    return err("pre_tokenizer regex: " + std::string(reinterpret_cast<char *>(msg)) +
               " at offset " + std::to_string(errorOffset));
  }
  impl->regex.reset(code);
  impl->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  tokenizer.impl = std::move(impl);
  return Status::ok();
}

void Tokenizer::Impl::bpe(const char *p, size_t n,
                          std::vector<int32_t> &ids) const {
  if (n == 1) {
    ids.push_back(byteToken[static_cast<uint8_t>(p[0])]);
    return;
  }
  // Symbols in a linked list; candidate merges in a heap ordered by (rank,
  // position): the lowest rank first, the leftmost among equals, as
  // `tokenizers` does. O(n log n), so long runs cannot stall encoding.
  struct Sym {
    int32_t id, prev, next;
  };
  std::vector<Sym> syms(n);
  for (size_t i = 0; i < n; ++i)
    syms[i] = {byteToken[static_cast<uint8_t>(p[i])],
               static_cast<int32_t>(i) - 1,
               i + 1 < n ? static_cast<int32_t>(i + 1) : -1};
  struct Cand {
    int32_t rank, pos, left, right, merged;
    bool operator>(const Cand &o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::priority_queue<Cand, std::vector<Cand>, std::greater<Cand>> heap;
  auto push = [&](int32_t pos) {
    if (pos < 0 || syms[pos].next < 0)
      return;
    int32_t r = syms[pos].next;
    if (const MergeTable::Merge *m = merges.find(syms[pos].id, syms[r].id))
      heap.push({m->rank, pos, syms[pos].id, syms[r].id, m->id});
  };
  for (size_t i = 0; i + 1 < n; ++i)
    push(static_cast<int32_t>(i));
  while (!heap.empty()) {
    Cand c = heap.top();
    heap.pop();
    Sym &s = syms[c.pos];
    // Stale: the symbol changed or was absorbed since this was pushed.
    if (s.id != c.left || s.next < 0 || syms[s.next].id != c.right)
      continue;
    int32_t r = s.next;
    s.id = c.merged;
    s.next = syms[r].next;
    if (s.next >= 0)
      syms[s.next].prev = c.pos;
    syms[r].id = -1;
    push(s.prev);
    push(c.pos);
  }
  for (int32_t i = 0; i >= 0; i = syms[i].next)
    ids.push_back(syms[i].id);
}

Status Tokenizer::encode(std::string_view text,
                         std::vector<int32_t> &ids) const {
  ids.clear();
  if (!impl->regex)
    return Status::error("tokenizer not loaded");
  if (!isValidUtf8(text))
    return Status::error("text is not valid UTF-8");
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data *)> md(
      pcre2_match_data_create_from_pattern(impl->regex.get(), nullptr),
      pcre2_match_data_free);

  auto encodeSegment = [&](std::string_view seg) -> Status {
    if (seg.empty())
      return Status::ok();
    std::string norm = impl->nfc ? toNfc(seg) : std::string(seg);
    auto subject = reinterpret_cast<PCRE2_SPTR>(norm.data());
    size_t pos = 0;
    while (pos < norm.size()) {
      int rc = impl->jit ? pcre2_jit_match(impl->regex.get(), subject,
                                           norm.size(), pos, 0, md.get(),
                                           nullptr)
                         : pcre2_match(impl->regex.get(), subject, norm.size(),
                                       pos, PCRE2_NO_UTF_CHECK, md.get(),
                                       nullptr);
      if (rc == PCRE2_ERROR_NOMATCH) {
        impl->bpe(norm.data() + pos, norm.size() - pos, ids);
        break;
      }
      if (rc < 0)
        return Status::error("pre-tokenizer regex failed (PCRE2 error " +
                             std::to_string(rc) + ")");
      PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md.get());
      size_t start = ov[0], end = ov[1];
      if (start > pos) // text between matches is a piece of its own
        impl->bpe(norm.data() + pos, start - pos, ids);
      if (end == start) { // an empty match: step one character
        end = start + 1;
        while (end < norm.size() && (static_cast<uint8_t>(norm[end]) & 0xC0) == 0x80)
          ++end;
      }
      impl->bpe(norm.data() + start, end - start, ids);
      pos = end;
    }
    return Status::ok();
  };

  size_t segStart = 0;
  for (size_t i = 0; i < text.size();) {
    const Impl::Added *hit = nullptr;
    if (impl->addedLead[static_cast<uint8_t>(text[i])]) {
      for (const auto &a : impl->added) // longest first
        if (text.compare(i, a.content.size(), a.content) == 0) {
          hit = &a;
          break;
        }
    }
    if (!hit) {
      ++i;
      continue;
    }
    if (Status st = encodeSegment(text.substr(segStart, i - segStart)); !st)
      return st;
    ids.push_back(hit->id);
    i += hit->content.size();
    segStart = i;
  }
  return encodeSegment(text.substr(segStart));
}

const std::string &Tokenizer::tokenBytes(int32_t id) const {
  static const std::string empty;
  if (id < 0 || id >= static_cast<int32_t>(impl->idBytes.size()))
    return empty;
  return impl->idBytes[id];
}

std::string Tokenizer::decode(const std::vector<int32_t> &ids) const {
  Utf8Stream stream;
  std::string out;
  for (int32_t id : ids)
    out += stream.feed(tokenBytes(id));
  return out + stream.finish();
}

int32_t Tokenizer::tokenId(std::string_view token) const {
  for (const auto &a : impl->added)
    if (a.content == token)
      return a.id;
  // Vocabulary entries are spelled in the byte-level alphabet.
  std::string spelled;
  for (unsigned char c : token)
    spelled += impl->byteSpelling[c];
  return impl->vocab.lookup(spelled);
}

int32_t Tokenizer::vocabSize() const {
  return static_cast<int32_t>(impl->idBytes.size());
}

} // namespace qwen3
