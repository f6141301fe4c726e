//===- TokenizerFuzzer.cpp - libFuzzer over tokenizer.json and encode -----===//
//
// The first byte picks the target:
//  * even: the rest is a tokenizer.json; parsing must fail cleanly or give a
//    tokenizer that encodes and decodes a fixed text without crashing;
//  * odd: the rest is text for the committed tiny Qwen3 tokenizer (path in
//    QWEN3_FUZZ_TOKENIZER): valid UTF-8 must round-trip, decode(encode(t))
//    == NFC(t), every id inside the vocabulary; invalid UTF-8 must be an
//    error. A broken property aborts (a finding).
//
//===----------------------------------------------------------------------===//

#include "qwen3/Tokenizer.h"
#include "qwen3/Unicode.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {
const qwen3::Tokenizer &fixed() {
  static std::unique_ptr<qwen3::Tokenizer> tok = [] {
    auto t = std::make_unique<qwen3::Tokenizer>();
    const char *path = std::getenv("QWEN3_FUZZ_TOKENIZER");
    if (!path) {
      std::fprintf(stderr, "set QWEN3_FUZZ_TOKENIZER to a tokenizer.json\n");
      std::abort();
    }
    auto st = qwen3::Tokenizer::load(path, *t);
    if (!st) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      std::abort();
    }
    return t;
  }();
  return *tok;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string_view rest(reinterpret_cast<const char *>(data) + 1, size - 1);
  std::vector<int32_t> ids;
  if (data[0] % 2 == 0) {
    qwen3::Tokenizer t;
    if (!qwen3::Tokenizer::parse(rest, "fuzz.json", t))
      return 0;
    if (t.encode("Hello world, 123 café", ids))
      (void)t.decode(ids);
    return 0;
  }
  const qwen3::Tokenizer &t = fixed();
  auto st = t.encode(rest, ids);
  if (!qwen3::isValidUtf8(rest)) {
    if (st)
      std::abort(); // invalid UTF-8 must be refused
    return 0;
  }
  if (!st)
    std::abort();
  for (int32_t id : ids)
    if (id < 0 || id >= t.vocabSize())
      std::abort();
  if (t.decode(ids) != qwen3::toNfc(rest))
    std::abort();
  return 0;
}
