//===- batch_step.cpp - the batched decode step of qwen3-serve, alone -----===//
//
//   qwen3-batch-bench --model DIR --kernels DIR [--rows 1,16,64]
//                     [--context 640] [--steps 64] [--device cuda]
//                     [--attention-splits S]
//
// The step continuous batching runs (Engine::decodeSlots, docs/serving.md)
// without the server around it: for each row count R, R cache slots hold a
// `context`-token sequence each (random prompts of their own). Correct
// first: each row's logits of the first step against its sequence's
// single-sequence step (cosine at least 0.999, else the tool fails). Then
// `steps` batched steps of the R rows run one after another, each timed
// on the host from the call to the picks on the host (upload, graph replay,
// read back: what the server's inter-token latency is made of), median and
// quartiles; then one more step with each kernel timed alone (no graph),
// its time and the bandwidth it reached on the bytes it must move (the
// GEMMs: the weights and the rows). Prints one JSON line per row count,
// with the device-to-device copy bandwidth of the same run, and the
// weight bytes a step must read (the roofline's numerator).
//
//===----------------------------------------------------------------------===//

#include "../../models/qwen3/tools/ToolSupport.h"
#include "qwen3/Engine.h"

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

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)];
}

} // namespace

int main(int argc, char **argv) {
  qwen3::tool::name() = "qwen3-batch-bench";
  std::string model, kernels, device = "cuda";
  std::vector<int64_t> rows = {1, 16, 64};
  int64_t context = 640, steps = 64, splits = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail(a + ": needs a value");
      return argv[++i];
    };
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
    else if (a == "--attention-splits")
      splits = qwen3::tool::parseInt(a, value(), 0, 8); // EngineOptions::batchAttentionSplits
    else
      fail("unknown flag '" + a + "'");
  }
  if (model.empty() || kernels.empty())
    fail("--model and --kernels are required");

  EngineOptions eo;
  eo.device = device;
  eo.kernelsDir = kernels;
  eo.maxBatch = *std::max_element(rows.begin(), rows.end());
  eo.batchAttentionSplits = splits;
  eo.maxSeqLen = context + steps + 8;
  std::unique_ptr<Engine> engine;
  if (Status st = Engine::create(model, eo, engine); !st)
    fail(st.message());
  const ModelConfig &c = engine->config();
  double copyBps = 0;
  if (Status st = engine->copyBandwidth(copyBps); !st)
    fail(st.message());
  // The weights one step reads: every layer's projections, the LM head.
  const double esize = 2;
  const double perLayer = (c.heads + 2 * c.kvHeads) * c.headDim * c.hidden +
                          c.heads * c.headDim * c.hidden + 3.0 * c.intermediate * c.hidden;
  const double weightBytes = esize * (c.layers * perLayer + c.vocabSize * c.hidden);

  // A prompt of its own per slot.
  std::mt19937 gen(1234);
  std::uniform_int_distribution<int32_t> tok(0, static_cast<int32_t>(c.vocabSize - 1));
  std::vector<std::vector<int32_t>> prompts(eo.maxBatch, std::vector<int32_t>(context));
  for (auto &prompt : prompts)
    for (int32_t &t : prompt)
      t = tok(gen);

  for (int64_t R : rows) {
    // Correct first: each row's logits of the first batched step against
    // the same sequence's single-sequence step (qwen3-run's GEMVs).
    std::vector<std::vector<float>> alone(R);
    std::vector<int32_t> first(R);
    for (int64_t s = 0; s < R; ++s) {
      int32_t next = 0;
      if (Status st = engine->prefill(prompts[s], first[s]); !st ||
          !(st = engine->decode(first[s], next)) || !(st = engine->lastLogits(alone[s])))
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
    double minCosine = 1, maxRel = 0;
    for (int64_t s = 0; s < R; ++s) {
      std::vector<float> got;
      if (Status st = engine->slotLogits(s, got); !st)
        fail(st.message());
      double dot = 0, na = 0, nb = 0, diff = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        const double a = alone[s][i], b = got[i];
        dot += a * b, na += a * a, nb += b * b, diff += (a - b) * (a - b);
      }
      minCosine = std::min(minCosine, dot / std::sqrt(na * nb));
      maxRel = std::max(maxRel, std::sqrt(diff / na));
    }
    if (!(minCosine >= 0.999))
      fail("rows " + std::to_string(R) + ": a row's logits against its single-sequence step: "
           "cosine " + std::to_string(minCosine) + " (< 0.999)");
    std::vector<double> ms;
    for (int64_t i = 0; i + 1 < steps; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      step();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                       .count());
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
                        {"steps", ms.size()},
                        {"step_ms", {{"median", med},
                                     {"p25", ms.empty() ? 0 : quantile(ms, 0.25)},
                                     {"p75", ms.empty() ? 0 : quantile(ms, 0.75)}}},
                        {"tok_s", med > 0 ? R * 1000.0 / med : 0},
                        {"min_cosine_vs_single", minCosine},
                        {"max_rel_error_vs_single", maxRel},
                        {"weight_bytes", weightBytes},
                        {"weights_at_copy_ms", copyBps > 0 ? weightBytes / copyBps * 1e3 : 0},
                        {"copy_bytes_per_s", copyBps},
                        {"profile_ms", profMs},
                        {"profile", p}};
    std::cout << j.dump() << std::endl;
  }
  return 0;
}
