//===- TokenizerTest.cpp - byte-level BPE vs Hugging Face tokenizers ------===//

#include "Qwen3TestUtils.h"
#include "qwen3/Tokenizer.h"
#include "qwen3/Unicode.h"

#include <gtest/gtest.h>

using namespace qwen3;

namespace {

const char *kQwenRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::string byteSpelling(unsigned b) {
  bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) ||
                   (b >= 174 && b <= 255);
  unsigned cp = b;
  if (!printable) {
    unsigned next = 256;
    for (unsigned k = 0; k < b; ++k)
      if (!((k >= 33 && k <= 126) || (k >= 161 && k <= 172) ||
            (k >= 174 && k <= 255)))
        ++next;
    cp = next;
  }
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

/// A small tokenizer.json of the Qwen form: the 256 byte tokens (id = byte),
/// then the given merges (each adds the merged token), one added token.
nlohmann::json syntheticTokenizer(
    const std::vector<std::pair<std::string, std::string>> &merges) {
  nlohmann::json vocab = nlohmann::json::object();
  for (unsigned b = 0; b < 256; ++b)
    vocab[byteSpelling(b)] = b;
  nlohmann::json mergeList = nlohmann::json::array();
  int next = 256;
  for (auto &[a, b] : merges) {
    if (!vocab.contains(a + b))
      vocab[a + b] = next++;
    mergeList.push_back({a, b});
  }
  return {
      {"version", "1.0"},
      {"added_tokens",
       {{{"id", 1000}, {"content", "<|end|>"}, {"single_word", false},
         {"lstrip", false}, {"rstrip", false}, {"normalized", false},
         {"special", true}}}},
      {"normalizer", {{"type", "NFC"}}},
      {"pre_tokenizer",
       {{"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"},
           {"pattern", {{"Regex", kQwenRegex}}},
           {"behavior", "Isolated"},
           {"invert", false}},
          {{"type", "ByteLevel"},
           {"add_prefix_space", false},
           {"trim_offsets", false},
           {"use_regex", false}}}}}},
      {"decoder", {{"type", "ByteLevel"}}},
      {"model",
       {{"type", "BPE"}, {"dropout", nullptr}, {"byte_fallback", false},
        {"ignore_merges", false}, {"vocab", vocab}, {"merges", mergeList}}}};
}

Tokenizer loadJson(const nlohmann::json &j) {
  Tokenizer t;
  Status st = Tokenizer::parse(j.dump(), "synthetic.json", t);
  EXPECT_TRUE(st.isOk()) << st.message();
  return t;
}

std::vector<int32_t> encode(const Tokenizer &t, std::string_view text) {
  std::vector<int32_t> ids;
  Status st = t.encode(text, ids);
  EXPECT_TRUE(st.isOk()) << st.message();
  return ids;
}

} // namespace

TEST(Tokenizer, MergesByRankLeftmostFirst) {
  // "aaa" with merge (a, a): the left pair merges first -> [aa, a].
  Tokenizer t = loadJson(syntheticTokenizer({{"a", "a"}, {"aa", "a"}}));
  EXPECT_EQ(encode(t, "aa"), (std::vector<int32_t>{256}));
  // aaa: (a,a) rank 0 at 0 -> [aa, a] -> (aa, a) rank 1 -> [aaa].
  EXPECT_EQ(encode(t, "aaa"), (std::vector<int32_t>{257}));
  EXPECT_EQ(encode(t, "aaaa"), (std::vector<int32_t>{256, 256}));
  // A lower rank wins over a leftward position.
  Tokenizer u = loadJson(syntheticTokenizer({{"b", "c"}, {"a", "b"}}));
  EXPECT_EQ(encode(u, "abc"), (std::vector<int32_t>{'a', 256}));
}

TEST(Tokenizer, AddedTokensSplitFirstAndPiecesFollowTheRegex) {
  Tokenizer t = loadJson(syntheticTokenizer({{"Ġ", "a"}}));
  // " a" is one piece (space + letter) -> merged; the added token is whole.
  EXPECT_EQ(encode(t, " a<|end|> a"),
            (std::vector<int32_t>{256, 1000, 256}));
  // Digits are single pieces; bytes map through the byte-level alphabet.
  EXPECT_EQ(encode(t, "12"), (std::vector<int32_t>{'1', '2'}));
  EXPECT_EQ(t.decode({256, 1000, '\n'}), " a<|end|>\n");
  EXPECT_EQ(t.tokenId("<|end|>"), 1000);
  EXPECT_EQ(t.tokenId(" a"), 256);
  EXPECT_EQ(t.tokenId("missing"), -1);
}

TEST(Tokenizer, LongRunsEncodeQuickly) {
  // 200k identical letters are one piece: the heap-based merge is
  // O(n log n); a quadratic one would not finish.
  Tokenizer t = loadJson(syntheticTokenizer({{"a", "a"}, {"aa", "aa"}}));
  std::vector<int32_t> ids = encode(t, std::string(200000, 'a'));
  EXPECT_EQ(ids.size(), 50000u);
}

TEST(Tokenizer, RejectsMalformedFiles) {
  auto expectError = [](const std::string &json, const std::string &part) {
    Tokenizer t;
    Status st = Tokenizer::parse(json, "tok.json", t);
    ASSERT_FALSE(st.isOk()) << json.substr(0, 80);
    EXPECT_NE(st.message().find("tok.json: "), std::string::npos);
    EXPECT_NE(st.message().find(part), std::string::npos) << st.message();
  };
  nlohmann::json good = syntheticTokenizer({{"a", "b"}});
  std::string text = good.dump();
  expectError("", "expected '{'");
  expectError(text.substr(0, text.size() / 2), "");
  expectError(text + "x", "trailing data");
  auto j = good;
  j["model"]["merges"].push_back({"a", "zz"});
  expectError(j.dump(), "names a token not in the vocabulary");
  j = good;
  j["model"]["vocab"].erase("a");
  expectError(j.dump(), "byte 97 has no token");
  j = good;
  j["model"]["vocab"]["\xE4\xBD\xA0"] = 5000;
  expectError(j.dump(), "not spelled in the byte-level alphabet");
  j = good;
  j["model"]["type"] = "WordPiece";
  expectError(j.dump(), "model.type: expected BPE");
  j = good;
  j["normalizer"] = {{"type", "NFKC"}};
  expectError(j.dump(), "unsupported normalizer");
  // Fields of another type are errors naming the field, not a throw (the
  // tokenizer fuzzer found {"type": false}).
  j["normalizer"] = {{"type", false}};
  expectError(j.dump(), "unsupported normalizer");
  j = good;
  j["pre_tokenizer"]["pretokenizers"][0]["invert"] = "no";
  expectError(j.dump(), "pre_tokenizer: expected");
  j = good;
  j["decoder"]["type"] = 7;
  expectError(j.dump(), "decoder: expected ByteLevel");
  j = good;
  j["added_tokens"][0]["normalized"] = "no";
  expectError(j.dump(), "added_tokens[0]");
  j = good;
  j = good;
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(unclosed";
  expectError(j.dump(), "pre_tokenizer regex");
  j = good;
  j["added_tokens"][0]["lstrip"] = true;
  expectError(j.dump(), "added_tokens[0]");
  j = good;
  j["model"]["vocab"]["a"] = -4;
  expectError(j.dump(), "out of range");
  Tokenizer t;
  Status st = Tokenizer::load("/nonexistent/tokenizer.json", t);
  EXPECT_EQ(st.message(),
            "cannot read '/nonexistent/tokenizer.json': No such file or directory");
}

TEST(Tokenizer, RejectsInvalidUtf8Text) {
  Tokenizer t = loadJson(syntheticTokenizer({}));
  std::vector<int32_t> ids;
  EXPECT_FALSE(t.encode("ab\xFF", ids).isOk());
}

// The real Qwen3 tokenizer against Hugging Face's output.
class Qwen3Tokenizer : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string path = test::sharedDir() + "/tokenizer/tokenizer.json";
    if (!test::fileExists(path))
      return;
    tokenizer = new Tokenizer();
    Status st = Tokenizer::load(path, *tokenizer);
    ASSERT_TRUE(st.isOk()) << st.message();
  }
  static void TearDownTestSuite() {
    delete tokenizer;
    tokenizer = nullptr;
  }
  void SetUp() override {
    QWEN3_REQUIRE_SHARED(test::sharedDir() + "/tokenizer/tokenizer.json");
  }
  static Tokenizer *tokenizer;
};
Tokenizer *Qwen3Tokenizer::tokenizer = nullptr;

TEST_F(Qwen3Tokenizer, MatchesHuggingFaceCases) {
  int checked = 0;
  for (const auto &c : test::readJsonl(test::sharedDir() + "/tokenizer_cases.jsonl")) {
    std::string text = c.contains("text") ? c["text"].get<std::string>()
                                          : c["rendered"].get<std::string>();
    auto want = c["ids"].get<std::vector<int32_t>>();
    EXPECT_EQ(encode(*tokenizer, text), want) << text;
    EXPECT_EQ(tokenizer->decode(want),
              c.contains("decoded") ? c["decoded"].get<std::string>() : text);
    ++checked;
  }
  EXPECT_EQ(checked, 22);
}

TEST_F(Qwen3Tokenizer, MatchesHuggingFaceExtraCases) {
  // More cases, encoded by Hugging Face tokenizers on the GPU machine
  // (tools/make_tokenizer_cases.py).
  std::string path = test::fixturesDir() + "/tokenizer_cases_extra.jsonl";
  if (!test::fileExists(path))
    GTEST_SKIP() << path << " not generated yet";
  auto cases = test::readJsonl(path);
  ASSERT_GT(cases.size(), 50u);
  for (const auto &c : cases) {
    std::string text = c["text"].get<std::string>();
    EXPECT_EQ(encode(*tokenizer, text), c["ids"].get<std::vector<int32_t>>())
        << text;
  }
}

TEST_F(Qwen3Tokenizer, SpecialTokensAndStreaming) {
  EXPECT_EQ(tokenizer->tokenId("<|im_end|>"), 151645);
  EXPECT_EQ(tokenizer->tokenId("<|endoftext|>"), 151643);
  EXPECT_EQ(tokenizer->vocabSize(), 151669);
  // An emoji is split over byte tokens: streaming emits nothing until it is
  // complete, and never invalid UTF-8.
  std::vector<int32_t> ids = encode(*tokenizer, "a\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD");
  Utf8Stream stream;
  std::string out;
  for (int32_t id : ids) {
    std::string piece = stream.feed(tokenizer->tokenBytes(id));
    EXPECT_TRUE(isValidUtf8(piece));
    out += piece;
  }
  EXPECT_EQ(out + stream.finish(), "a\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD");
}
