//===- batch_step.cpp - the batched decode step of qwen3-serve, alone -----===//
//
//   qwen3-batch-bench --model DIR --kernels DIR [--rows 1,16,64]
//                     [--context 640] [--steps 64] [--device cuda]
//                     [--attention-splits S] [--projection-splits S]
//                     [--weights stored|16bit|fp8] [--chunks 256,512]
//                     [--fp8-gemm-weights auto|per-gemm|resident]
//
// The step continuous batching runs (Engine::decodeSlots, docs/serving.md)
// without the server around it: for each row count R, R cache slots hold a
// `context`-token sequence each (random prompts of their own). Correct
// first: each row's logits of the first step against the prompt path's
// for the same token, within twice the spread between the prompt path and
// the single-sequence step (and a cosine of at least 0.99), else the tool
// fails; all three cosines are reported. Then
// `steps` batched steps of the R rows run one after another, each timed
// on the host from the call to the picks on the host (upload, graph replay,
// read back: what the server's inter-token latency is made of), median and
// quartiles; then one more step with each kernel timed alone (no graph),
// its time and the bandwidth it reached on the bytes it must move (the
// GEMMs: the weights and the rows). Prints one JSON line per row count,
// with the device-to-device copy bandwidth of the same run, and the
// weight bytes a step must read (the roofline's numerator).
//
// With --chunks, for each row count and chunk size C, mixed steps: the R
// rows' step carrying C tokens of a prompt of 4C random tokens in one more
// slot (Engine::PromptChunk), two prompts, each step timed as above,
// median; beside it, the same chunks prefilled on their own
// (prefillSlot of the prompt up to each chunk's end, as qwen3-serve's
// --prefill separate runs them; other prompts, so nothing is reused),
// median, whose sum with the step alone is what a separate prefill costs
// the running rows. (The mixed step's correctness: Qwen3MixedStep's tests.)
//
//===----------------------------------------------------------------------===//

#include "../../models/qwen3/tools/ToolSupport.h"
#include "qwen3/Engine.h"
#include "qwen3/KernelTable.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <random>
#include <sstream>

using namespace qwen3;
using qwen3::tool::fail;

namespace {

std::vector<int64_t> parseList(const std::string &flag, const std::string &v) {
  std::vector<int64_t> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ','))
    out.push_back(qwen3::tool::parseInt(flag, item, 1, 1024));
  if (out.empty())
    fail(flag + ": expected a comma-separated list of row counts");
  return out;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)];
}

} // namespace

int main(int argc, char **argv) {
  qwen3::tool::name() = "qwen3-batch-bench";
  std::string model, kernels, device = "cuda";
  std::vector<int64_t> rows = {1, 16, 64}, chunks;
  int64_t context = 640, steps = 64, splits = 0, projectionSplits = 0;
  EngineOptions::Weights weights = EngineOptions::Weights::Stored;
  EngineOptions::Fp8GemmWeights fp8GemmWeights = EngineOptions::Fp8GemmWeights::Auto;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] { return qwen3::tool::flagValue(argc, argv, i); };
    if (a == "--model")
      model = value();
    else if (a == "--kernels")
      kernels = value();
    else if (a == "--device")
      device = value();
    else if (a == "--rows")
      rows = parseList(a, value());
    else if (a == "--context")
      context = qwen3::tool::parseInt(a, value(), 2, 1 << 20);
    else if (a == "--steps")
      steps = qwen3::tool::parseInt(a, value(), 1, 100000);
    else if (a == "--weights")
      weights = qwen3::tool::parseWeights(a, value());
    else if (a == "--fp8-gemm-weights")
      fp8GemmWeights = qwen3::tool::parseFp8GemmWeights(a, value());
    else if (a == "--chunks")
      chunks = parseList(a, value());
    else if (a == "--attention-splits")
      splits = qwen3::tool::parseInt(a, value(), 0, 8); // EngineOptions::batchAttentionSplits
    else if (a == "--projection-splits") // EngineOptions::projectionSplits
      projectionSplits = qwen3::tool::parseInt(a, value(), 0, qwen3::kernels::kMaxProjectionSplits);
    else
      fail("unknown flag '" + a + "'");
  }
  if (model.empty() || kernels.empty())
    fail("--model and --kernels are required");

  EngineOptions eo;
  eo.device = device;
  eo.kernelsDir = kernels;
  const int64_t maxRows = *std::max_element(rows.begin(), rows.end());
  const int64_t maxChunk = chunks.empty() ? 0 : *std::max_element(chunks.begin(), chunks.end());
  // A slot more for the chunks' prompt.
  eo.maxBatch = std::max<int64_t>(2, maxRows + (chunks.empty() ? 0 : 1));
  eo.stepPromptTokens = maxChunk;
  eo.batchAttentionSplits = splits;
  eo.projectionSplits = projectionSplits;
  eo.weights = weights;
  eo.fp8GemmWeights = fp8GemmWeights;
  eo.maxSeqLen = std::max(context + steps + 16, 4 * maxChunk + 8);
  std::unique_ptr<Engine> engine;
  if (Status st = Engine::create(model, eo, engine); !st)
    fail(st.message());
  const ModelConfig &c = engine->config();
  double copyBps = 0;
  if (Status st = engine->copyBandwidth(copyBps); !st)
    fail(st.message());
  // The weights one step reads: every layer's projections (one byte each
  // in FP8), the LM head.
  const double esize = weights == EngineOptions::Weights::Fp8 ? 1 : 2;
  const double perLayer = (c.heads + 2 * c.kvHeads) * c.headDim * c.hidden +
                          c.heads * c.headDim * c.hidden + 3.0 * c.intermediate * c.hidden;
  const double weightBytes = esize * c.layers * perLayer + 2.0 * c.vocabSize * c.hidden;

  // A prompt of its own per slot.
  std::mt19937 gen(1234);
  std::uniform_int_distribution<int32_t> tok(0, static_cast<int32_t>(c.vocabSize - 1));
  std::vector<std::vector<int32_t>> prompts(eo.maxBatch, std::vector<int32_t>(context));
  for (auto &prompt : prompts)
    for (int32_t &t : prompt)
      t = tok(gen);

  for (int64_t R : rows) {
    // Correct first: each row's logits of the first batched step against
    // the prompt path's for the same token (a prefill of the prompt and
    // the token: the same GEMMs and norms, another attention kernel), and,
    // reported, against the single-sequence step's (qwen3-run's GEMVs,
    // the norms rounded elsewhere).
    std::vector<std::vector<float>> prompted(R), alone(R);
    std::vector<int32_t> first(R);
    for (int64_t s = 0; s < R; ++s) {
      int32_t next = 0;
      std::vector<int32_t> longer = prompts[s];
      if (Status st = engine->prefill(prompts[s], first[s]); !st ||
          !(st = engine->decode(first[s], next)) || !(st = engine->lastLogits(alone[s])))
        fail(st.message());
      longer.push_back(first[s]);
      if (Status st = engine->prefill(longer, next); !st ||
          !(st = engine->lastLogits(prompted[s])))
        fail(st.message());
    }
    std::vector<Engine::SlotStep> batch(R);
    for (int64_t s = 0; s < R; ++s) {
      int64_t reused = 0;
      if (Status st = engine->prefillSlot(s, prompts[s], Sampling(), batch[s].token, reused); !st)
        fail(st.message());
      if (batch[s].token != first[s])
        fail("slot " + std::to_string(s) + ": the prompt's pick differs from a whole prefill's");
      batch[s].slot = s;
    }
    std::vector<int32_t> next;
    auto step = [&] {
      if (Status st = engine->decodeSlots(batch, next); !st)
        fail(st.message());
      for (int64_t s = 0; s < R; ++s)
        batch[s].token = next[s];
    };
    step(); // captures the bucket's graph
    struct Agreement {
      double minCosine = 1, maxRel = 0;
      void add(const std::vector<float> &want, const std::vector<float> &got) {
        double dot = 0, na = 0, nb = 0, diff = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          const double a = want[i], b = got[i];
          dot += a * b, na += a * a, nb += b * b, diff += (a - b) * (a - b);
        }
        minCosine = std::min(minCosine, dot / std::sqrt(na * nb));
        maxRel = std::max(maxRel, std::sqrt(diff / na));
      }
    } vsPrompt, vsSingle, paths;
    for (int64_t s = 0; s < R; ++s) {
      std::vector<float> got;
      if (Status st = engine->slotLogits(s, got); !st)
        fail(st.message());
      vsPrompt.add(prompted[s], got);
      vsSingle.add(alone[s], got);
      paths.add(prompted[s], alone[s]);
    }
    // Random weights at real shapes carry bf16 rounding far through the
    // layers; the two established paths (both checked against
    // transformers) set the spread a third may have: a row is no further
    // from the prompt path than twice the single step is, and never below
    // 0.99 (a wrong head or row is far below).
    const double allowed = std::max(0.99, 1 - 2 * (1 - paths.minCosine));
    if (!(vsPrompt.minCosine >= allowed))
      fail("rows " + std::to_string(R) + ": a row's logits against the prompt path's: cosine " +
           std::to_string(vsPrompt.minCosine) + " (< " + std::to_string(allowed) +
           "; the single-sequence step's: " + std::to_string(paths.minCosine) + ")");
    std::vector<double> ms;
    for (int64_t i = 0; i + 1 < steps; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      step();
      ms.push_back(msSince(t0));
    }
    std::vector<KernelTime> prof;
    if (Status st = engine->profileSlots(batch, next, prof); !st)
      fail(st.message());
    nlohmann::json p = nlohmann::json::array();
    double profMs = 0;
    for (const KernelTime &k : prof) {
      profMs += k.ms;
      p.push_back({{"kernel", k.name},
                   {"launches", k.launches},
                   {"ms", k.ms},
                   {"bytes", k.bytes},
                   {"of_copy", k.ms > 0 && copyBps > 0 ? k.bytes / (k.ms * 1e-3) / copyBps : 0}});
    }
    const double med = ms.empty() ? 0 : quantile(ms, 0.5);
    nlohmann::json j = {{"kind", "batch_step"},
                        {"device", engine->deviceName()},
                        {"rows", R},
                        {"context", context},
                        {"attention_splits", splits},
                        {"projection_splits", projectionSplits},
                        {"fp8_gemm_weights", qwen3::tool::fp8GemmWeightsName(fp8GemmWeights)},
                        {"steps", ms.size()},
                        {"step_ms", {{"median", med},
                                     {"p25", ms.empty() ? 0 : quantile(ms, 0.25)},
                                     {"p75", ms.empty() ? 0 : quantile(ms, 0.75)}}},
                        {"tok_s", med > 0 ? R * 1000.0 / med : 0},
                        {"min_cosine_vs_prompt", vsPrompt.minCosine},
                        {"max_rel_error_vs_prompt", vsPrompt.maxRel},
                        {"min_cosine_vs_single", vsSingle.minCosine},
                        {"min_cosine_single_vs_prompt", paths.minCosine},
                        {"max_rel_error_vs_single", vsSingle.maxRel},
                        {"weight_bytes", weightBytes},
                        {"weights_at_copy_ms", copyBps > 0 ? weightBytes / copyBps * 1e3 : 0},
                        {"copy_bytes_per_s", copyBps},
                        {"profile_ms", profMs},
                        {"profile", p}};
    std::cout << j.dump() << std::endl;

    for (int64_t C : chunks) {
      // Two prompts of four chunks each, run beside the R rows, each
      // followed by another prompt's chunks prefilled on their own.
      std::vector<double> mixedMs, separateMs;
      for (int rep = 0; rep < 2; ++rep) {
        std::vector<int32_t> prompt(4 * C);
        for (int32_t &t : prompt)
          t = tok(gen);
        Engine::PromptChunk chunk;
        chunk.slot = R;
        chunk.prompt = &prompt;
        chunk.stepTokens = R + C; // R is its own bucket (a power of two)
        while (chunk.end < static_cast<int64_t>(prompt.size())) {
          auto t0 = std::chrono::steady_clock::now();
          if (Status st = engine->decodeSlots(batch, next, &chunk); !st)
            fail(st.message());
          mixedMs.push_back(msSince(t0));
          for (int64_t s = 0; s < R; ++s)
            batch[s].token = next[s];
        }
        if (Status st = engine->releaseSlot(R); !st)
          fail(st.message());
        // Another prompt, so nothing of the first is reused.
        for (int32_t &t : prompt)
          t = tok(gen);
        for (int64_t end = C; end <= static_cast<int64_t>(prompt.size()); end += C) {
          const std::vector<int32_t> part(prompt.begin(), prompt.begin() + end);
          int32_t pick = 0;
          int64_t reused = 0;
          auto t0 = std::chrono::steady_clock::now();
          if (Status st = engine->prefillSlot(R, part, Sampling(), pick, reused); !st)
            fail(st.message());
          separateMs.push_back(msSince(t0));
        }
        if (Status st = engine->releaseSlot(R); !st)
          fail(st.message());
      }
      const double mixed = quantile(mixedMs, 0.5), separate = quantile(separateMs, 0.5);
      nlohmann::json m = {{"kind", "mixed_step"},
                          {"device", engine->deviceName()},
                          {"rows", R},
                          {"chunk", C},
                          {"context", context},
                          {"steps", mixedMs.size()},
                          {"mixed_step_ms", mixed},
                          {"separate_prefill_ms", separate},
                          {"step_alone_ms", med},
                          {"separate_total_ms", separate + med},
                          {"copy_bytes_per_s", copyBps}};
      std::cout << m.dump() << std::endl;
    }
  }
  return 0;
}
