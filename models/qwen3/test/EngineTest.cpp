//===- EngineTest.cpp - the engine on the CPU vs transformers' outputs ----===//
//
// The committed tiny Qwen3 (test/fixtures/tiny-{bf16,f16}: 2 layers, random
// weights, made by tools/make_tiny_fixture.py) with golden tokens and logits
// from transformers' Qwen3ForCausalLM. The engine runs it on the CPU device
// through the compiled kernel set: the prompt's ids, 33 greedy tokens and the
// logits of every step must match.
//
//===----------------------------------------------------------------------===//

#include "Qwen3TestUtils.h"
#include "qwen3/ChatTemplate.h"
#include "qwen3/Engine.h"
#include "qwen3/Tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace qwen3;

namespace {

std::string fixture(const std::string &name = "tiny-bf16") {
  return test::fixturesDir() + "/" + name;
}

nlohmann::json golden(const std::string &name = "tiny-bf16") {
  std::ifstream in(fixture(name) + "/golden.json");
  return nlohmann::json::parse(in);
}

std::vector<float> goldenLogits(const std::string &name, int64_t steps,
                                int64_t vocab) {
  std::vector<float> v(steps * vocab);
  std::ifstream in(fixture(name) + "/golden_logits.f32", std::ios::binary);
  in.read(reinterpret_cast<char *>(v.data()), v.size() * 4);
  EXPECT_EQ(in.gcount(), static_cast<std::streamsize>(v.size() * 4));
  return v;
}

/// The fixture's engine on the test device, a cache of 128 positions.
/// attentionGroupedFrom 0: every decode step runs grouped_decode_attention.
std::unique_ptr<Engine>
openEngine(const std::string &name, int64_t attentionSplits = 0,
           int64_t keysPerShare = 32,
           int64_t groupedFrom = EngineOptions().attentionGroupedFrom) {
  EngineOptions opts;
  opts.device = test::testDevice();
  opts.kernelsDir = test::kernelsDir();
  opts.maxSeqLen = 128;
  opts.attentionSplits = attentionSplits;
  opts.attentionKeysPerShare = keysPerShare;
  opts.attentionGroupedFrom = groupedFrom;
  std::unique_ptr<Engine> engine;
  Status st = Engine::create(fixture(name), opts, engine);
  EXPECT_TRUE(st.isOk()) << st.message();
  return engine;
}


} // namespace

TEST(Qwen3Engine, TinyTokenizerMatchesTransformers) {
  Tokenizer tok;
  ASSERT_TRUE(Tokenizer::load(fixture() + "/tokenizer.json", tok).isOk());
  nlohmann::json g = golden();
  std::vector<int32_t> ids;
  std::string rendered =
      renderChat({{"user", g["prompt"].get<std::string>(), std::nullopt, {}}}, true, false);
  EXPECT_EQ(rendered, g["rendered"].get<std::string>());
  ASSERT_TRUE(tok.encode(rendered, ids).isOk());
  EXPECT_EQ(ids, g["prompt_ids"].get<std::vector<int32_t>>());
  for (const auto &c : g["tokenizer_cases"]) {
    ASSERT_TRUE(tok.encode(c["text"].get<std::string>(), ids).isOk());
    EXPECT_EQ(ids, c["ids"].get<std::vector<int32_t>>()) << c["text"];
  }
}

// The same tiny model saved in bf16 and in f16 (each run in its own dtype;
// golden outputs from transformers in that dtype).
class Qwen3EngineDtype : public ::testing::TestWithParam<std::string> {};

/// The prompt, then greedy decode steps; every step's logits and the tokens
/// against transformers'. Each step is fed transformers' token (teacher
/// forcing), so every step's logits compare in the same context. Both run
/// in the model's 16-bit dtype with different summation orders, so the
/// bounds scale with its unit roundoff u (2^-8 bf16, 2^-11 f16; the
/// fixtures measure up to about 7.7 u of relative error): relative error
/// within 10 u, and our pick transformers' unless the reference's logits
/// of the two tie within that bound (10 u of the top logit: the tiny models
/// have a few such steps, at most two of 33).
void expectGreedyDecodeMatches(const std::string &name, Engine *engine) {
  nlohmann::json g = golden(name);
  const int64_t steps = g["steps"], vocab = g["vocab_size"];
  std::vector<float> want = goldenLogits(name, steps, vocab);
  ASSERT_TRUE(engine);
  const bool bf16 = engine->config().dtype == "bfloat16";
  const double unit = std::ldexp(1.0, bf16 ? -8 : -11);
  Status st = Status::ok();
  auto wantTokens = g["greedy_tokens"].get<std::vector<int32_t>>();
  std::vector<float> logits;
  int32_t next = -1;
  ASSERT_TRUE(engine->prefill(g["prompt_ids"].get<std::vector<int32_t>>(), next).isOk());
  int ties = 0;
  for (int64_t s = 0; s < steps; ++s) {
    if (s > 0) {
      st = engine->decode(wantTokens[s - 1], next);
      ASSERT_TRUE(st.isOk()) << st.message();
    }
    ASSERT_GE(next, 0);
    ASSERT_LT(next, vocab);
    const float *ref = &want[s * vocab];
    if (next != wantTokens[s]) {
      EXPECT_LE(ref[wantTokens[s]] - ref[next], 10 * unit * std::fabs(ref[wantTokens[s]]))
          << "step " << s << ": picked " << next << ", transformers " << wantTokens[s];
      ++ties;
    }
    ASSERT_TRUE(engine->lastLogits(logits).isOk());
    ASSERT_EQ(static_cast<int64_t>(logits.size()), vocab);
    for (int64_t i = 0; i < vocab; ++i)
      ASSERT_TRUE(std::isfinite(logits[i])) << "step " << s << " logit " << i;
    // Cosine similarity and relative error against the reference.
    test::LogitsAgreement agree = test::agreement(&want[s * vocab], logits.data(), vocab);
    EXPECT_GE(agree.cosine, 0.999) << "step " << s;
    EXPECT_LE(agree.relError, 10 * unit) << "step " << s;
  }
  EXPECT_LE(ties, 2) << "at most two steps of the fixtures are near ties";
}

TEST_P(Qwen3EngineDtype, GreedyDecodeMatchesTransformers) {
  expectGreedyDecodeMatches(GetParam(), openEngine(GetParam()).get());
}

// The prompt's launches: the RoPE table once, each layer's query and key
// kernels from its rows, and each layer's gate/up GEMM with SwiGLU in its
// epilogue (GreedyDecodeMatchesTransformers checks the logits they make).
TEST_P(Qwen3EngineDtype, PrefillLaunchesTheRopeTableAndTheSwigluGemm) {
  std::unique_ptr<Engine> engine = openEngine(GetParam());
  ASSERT_TRUE(engine);
  nlohmann::json g = golden(GetParam());
  std::vector<KernelTime> times;
  Status st = engine->profilePrefill(g["prompt_ids"].get<std::vector<int32_t>>(), times);
  ASSERT_TRUE(st.isOk()) << st.message();
  std::map<std::string, int> launches;
  for (const KernelTime &t : times)
    launches[t.name] += t.launches;
  const int layers = static_cast<int>(engine->config().layers);
  EXPECT_EQ(launches["rope_table__HD_64"], 1);
  EXPECT_EQ(launches["q_norm_rope_from_table__HD_64"], layers);
  EXPECT_EQ(launches["kv_norm_rope_write_rows__HD_64"], layers);
  EXPECT_EQ(launches["gemm_swiglu"], layers);
}

// Each KV split count of the kernel set (8, 16, 32, 48; the grouped kernel
// has no 8 and decode_attention no 48: each runs its smallest) forced, for
// each decode
// attention (grouped from position 0, or never), then chosen per step with
// one key per share and grouped from position 27, so the step switches
// tiers (and graphs) at positions 27 and 32 of the generation (22 prompt
// tokens, 33 steps; the tiny model's 2 heads x 32 shares are within the
// default program budget).
void expectEverySplitCountMatches(const std::string &name) {
  for (int64_t groupedFrom : {int64_t(0), int64_t(1) << 40})
    for (int64_t splits : {8, 16, 32, 48}) {
      SCOPED_TRACE("S = " + std::to_string(splits) + (groupedFrom ? "" : ", grouped"));
      expectGreedyDecodeMatches(name, openEngine(name, splits, 32, groupedFrom).get());
    }
  SCOPED_TRACE("S and kernel by position");
  nlohmann::json g = golden(name);
  ASSERT_LT(g["prompt_ids"].size(), 27u);
  ASSERT_GT(g["prompt_ids"].size() + g["steps"].get<size_t>(), 33u);
  expectGreedyDecodeMatches(name, openEngine(name, 0, 1, 27).get());
}

TEST_P(Qwen3EngineDtype, EveryAttentionSplitCountMatchesTransformers) {
  expectEverySplitCountMatches(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Tiny, Qwen3EngineDtype,
                         ::testing::Values("tiny-bf16", "tiny-f16"),
                         [](const auto &info) {
                           return info.param == "tiny-bf16" ? std::string("bf16")
                                                            : std::string("f16");
                         });

// The decode step (fused GEMVs, attention with the query's RoPE inside) and
// the prefill (GEMMs, separate norms) are different kernels: a one-token
// prompt followed by the rest of the prompt token by token (teacher forcing)
// must end at the logits of the whole prompt's prefill.
void expectDecodeStepsAgreeWithPrefill(const std::string &name) {
  nlohmann::json g = golden(name);
  auto prompt = g["prompt_ids"].get<std::vector<int32_t>>();
  ASSERT_GE(prompt.size(), 3u);
  std::unique_ptr<Engine> engine = openEngine(name);
  ASSERT_TRUE(engine);
  Status st = Status::ok();
  int32_t whole = -1, stepped = -1;
  std::vector<float> want, got;
  ASSERT_TRUE(engine->prefill(prompt, whole).isOk());
  ASSERT_TRUE(engine->lastLogits(want).isOk());
  ASSERT_TRUE(engine->prefill({prompt[0]}, stepped).isOk());
  for (size_t i = 1; i < prompt.size(); ++i) {
    st = engine->decode(prompt[i], stepped);
    ASSERT_TRUE(st.isOk()) << st.message();
  }
  ASSERT_TRUE(engine->lastLogits(got).isOk());
  ASSERT_EQ(got.size(), want.size());
  test::LogitsAgreement agree = test::agreement(want.data(), got.data(), want.size());
  EXPECT_GE(agree.cosine, 0.999);
  EXPECT_LE(agree.relError, 0.03);
  EXPECT_EQ(stepped, whole);
}

TEST_P(Qwen3EngineDtype, DecodeStepsAgreeWithPrefill) {
  expectDecodeStepsAgreeWithPrefill(GetParam());
}

// Other tiny models, each with its golden outputs from transformers: GQA
// group 1 (bf16), group 3 with an intermediate size that is a multiple of
// 128 but not of 256 (bf16), group 5 with untied embeddings (f16)
// (tools/make_tiny_fixture.py); the bf16 model as a fine-grained FP8
// checkpoint, scales in F32, BF16 and F16, one module left 16-bit
// (tools/make_fp8_fixture.py; the reference runs the weights it decodes to).
class Qwen3EngineVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(Qwen3EngineVariant, GreedyDecodeMatchesTransformers) {
  expectGreedyDecodeMatches(GetParam(), openEngine(GetParam()).get());
}

TEST_P(Qwen3EngineVariant, EveryAttentionSplitCountMatchesTransformers) {
  expectEverySplitCountMatches(GetParam());
}

TEST_P(Qwen3EngineVariant, DecodeStepsAgreeWithPrefill) {
  expectDecodeStepsAgreeWithPrefill(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Tiny, Qwen3EngineVariant,
                         ::testing::Values("tiny-g1-bf16", "tiny-g3-bf16", "tiny-g5-f16",
                                           "tiny-fp8"),
                         [](const auto &info) {
                           std::string n = info.param.substr(5); // after "tiny-"
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(Qwen3Engine, RejectsAnAttentionSplitCountTheKernelsLack) {
  EngineOptions opts;
  opts.device = test::testDevice();
  opts.kernelsDir = test::kernelsDir();
  opts.maxSeqLen = 8;
  opts.attentionSplits = 24;
  std::unique_ptr<Engine> engine;
  EXPECT_EQ(Engine::create(fixture(), opts, engine).message(),
            "--attention-splits 24: the kernel set has 8, 16, 32, 48");
  opts.attentionSplits = 0;
  opts.attentionGroupedFrom = -1;
  EXPECT_EQ(Engine::create(fixture(), opts, engine).message(),
            "--attention-grouped-from must be >= 0, got -1");
  opts.attentionGroupedFrom = 0;
  opts.attentionKeysPerShare = 0;
  EXPECT_EQ(Engine::create(fixture(), opts, engine).message(),
            "--attention-keys-per-share must be >= 1, got 0");
}

// prefillReusing computes only what the KV cache lacks: the prompt's
// prefix the engine holds (the last prompt and the tokens fed after it) is
// kept, the rest (at least two tokens) prefilled after it. Where the reused
// rows were prefilled, the logits are exactly a whole prefill's; rows of
// decoded tokens were written by the decode step's GEMVs, so there within
// rounding.
TEST(Qwen3Engine, PrefillReusingComputesOnlyWhatTheCacheLacks) {
  std::unique_ptr<Engine> engine = openEngine("tiny-bf16"), fresh = openEngine("tiny-bf16");
  ASSERT_TRUE(engine && fresh);
  auto compare = [&](const std::vector<int32_t> &ids, int64_t wantReused, bool exact) {
    int32_t got = 0, want = 0;
    int64_t r = -1;
    ASSERT_TRUE(engine->prefillReusing(ids, got, r).isOk());
    EXPECT_EQ(r, wantReused);
    ASSERT_TRUE(fresh->prefill(ids, want).isOk());
    // The step's logits and pick, then two decode steps on from there, as
    // a whole prefill's.
    for (int step = 0; step < 3; ++step) {
      if (step > 0) {
        ASSERT_TRUE(engine->decode(got, got).isOk());
        ASSERT_TRUE(fresh->decode(want, want).isOk());
      }
      std::vector<float> lr, lf;
      ASSERT_TRUE(engine->lastLogits(lr).isOk());
      ASSERT_TRUE(fresh->lastLogits(lf).isOk());
      if (exact)
        EXPECT_EQ(lr, lf) << "step " << step;
      EXPECT_GE(test::agreement(lf.data(), lr.data(), lf.size()).cosine, 0.999) << "step " << step;
      EXPECT_EQ(got, want) << "step " << step;
    }
  };
  const std::vector<int32_t> a = {17, 900, 4, 2000, 55, 1234, 7, 300};
  compare(a, 0, true); // nothing cached yet
  // The same prompt again: all but its last two tokens, exactly.
  compare(a, static_cast<int64_t>(a.size()) - 2, true);
  // A prompt extending the last one and the two tokens decoded after it.
  std::vector<int32_t> b = a;
  int32_t next = 0;
  int64_t reused = -1;
  ASSERT_TRUE(engine->prefillReusing(a, next, reused).isOk());
  for (int i = 0; i < 3; ++i) {
    b.push_back(next);
    ASSERT_TRUE(engine->decode(next, next).isOk());
  }
  b.insert(b.end(), {100, 101});
  compare(b, static_cast<int64_t>(a.size()) + 3, false);
  // A prompt diverging after 4 tokens reuses those 4.
  compare({17, 900, 4, 2000, 9, 9, 9}, 4, true);
  // A prompt refused before it runs leaves the cache as it was.
  std::vector<int32_t> tooLong(200, 5);
  EXPECT_FALSE(engine->prefillReusing(tooLong, next, reused).isOk());
  ASSERT_TRUE(engine->prefillReusing(a, next, reused).isOk());
  EXPECT_EQ(reused, 4) << "the last prompt's prefix (17, 900, 4, 2000) is still there";
}

// leaveOut (a measurement aid) drops the launches it names: without the
// decode attention the decode step's logits are not the full step's, while
// the prefill (prefill_attention) gives the same first token.
TEST(Qwen3Engine, LeavesOutTheKernelsItNamesForMeasurement) {
  std::vector<std::vector<float>> logits;
  int32_t first[2] = {-1, -2};
  for (bool leave : {false, true}) {
    EngineOptions opts;
    opts.device = test::testDevice();
    opts.kernelsDir = test::kernelsDir();
    opts.maxSeqLen = 16;
    if (leave)
      opts.leaveOut = {"decode_attention"};
    std::unique_ptr<Engine> engine;
    ASSERT_TRUE(Engine::create(fixture(), opts, engine).isOk());
    int32_t next = 0;
    ASSERT_TRUE(engine->prefill({1, 2, 3, 4}, first[leave]).isOk());
    ASSERT_TRUE(engine->decode(first[leave], next).isOk());
    logits.emplace_back();
    ASSERT_TRUE(engine->lastLogits(logits.back()).isOk());
  }
  EXPECT_EQ(first[0], first[1]);
  ASSERT_EQ(logits[0].size(), logits[1].size());
  EXPECT_NE(logits[0], logits[1]);
}

TEST(Qwen3Engine, RejectsPromptsPastTheCache) {
  EngineOptions opts;
  opts.device = test::testDevice();
  opts.kernelsDir = test::kernelsDir();
  opts.maxSeqLen = 8;
  std::unique_ptr<Engine> engine;
  ASSERT_TRUE(Engine::create(fixture(), opts, engine).isOk());
  int32_t next;
  Status st = engine->prefill(std::vector<int32_t>(9, 1), next);
  EXPECT_EQ(st.message(), "the prompt has 9 tokens, more than --max-seq-len 8");
  EXPECT_EQ(engine->prefill({}, next).message(), "the prompt is empty");
}
