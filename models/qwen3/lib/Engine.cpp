//===- Engine.cpp - the Qwen3 engine: loading, the step API, graphs -------===//

#include "EngineImpl.h"

#include "Fp8.h"

#include "qwen3/KernelTable.h"
#include "qwen3/Safetensors.h"
#include "tile/runtime/Half.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace qwen3 {

using namespace tile_runtime;

namespace {

/// Element conversion of checkpoint data into the model dtype. Only exact
/// or widening-then-rounding conversions: F32 -> bf16/f16 rounds to
/// nearest even (an F32 tensor in a bf16 checkpoint); bf16 <-> f16 is
/// refused, since it would silently lose range or precision.
Status convertInto(const TensorInfo &t, DType to, uint8_t *dst) {
  int64_t n = t.count();
  if ((t.dtype == TensorDType::BF16 && to == DType::BF16) ||
      (t.dtype == TensorDType::F16 && to == DType::F16)) {
    std::memcpy(dst, t.data, t.bytes);
    return Status::ok();
  }
  if (t.dtype == TensorDType::F32) {
    const uint8_t *src = t.data;
    auto *out = reinterpret_cast<uint16_t *>(dst);
    for (int64_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, src + 4 * i, 4);
      out[i] = to == DType::BF16 ? toBF16(f) : toHalf(f);
    }
    return Status::ok();
  }
  return Status::error(t.file + ": tensor '" + t.name + "' is " +
                       dtypeName(t.dtype) + " but the model runs in " +
                       std::string(toString(to)) +
                       " (no lossy conversion between bf16 and f16)");
}

} // namespace


Engine::Engine() : impl(std::make_unique<Impl>()) {}
Engine::~Engine() = default;
const ModelConfig &Engine::config() const { return impl->cfg; }
int64_t Engine::maxSeqLen() const { return impl->maxSeq; }
std::string Engine::deviceName() const { return impl->device->name(); }
double Engine::weightsLoadMs() const { return impl->weightsMs; }

// Every tensor is found and its shape and dtype checked against the config
// before the device opens, so a broken checkpoint is reported as such on a
// machine whose device would also fail.
Status Engine::Impl::checkWeights(const Checkpoint &ck, const std::string &dir) const {
  const int64_t H = cfg.hidden, I = cfg.intermediate, HD = cfg.headDim;
  const int64_t qRows = cfg.heads * HD, kvRows = cfg.kvHeads * HD;
  // Every tensor is found and shape-checked before anything is allocated.
  struct Want {
    std::string name;
    std::vector<int64_t> shape;
    bool fp8 = false; ///< F8_E4M3 with block scales (quantization_config)
  };
  std::vector<Want> wants = {{"model.embed_tokens.weight", {cfg.vocabSize, H}},
                             {"model.norm.weight", {H}}};
  bool haveLmHead = ck.find("lm_head.weight") != nullptr;
  if (!cfg.tiedEmbeddings || haveLmHead)
    wants.push_back({"lm_head.weight", {cfg.vocabSize, H}});
  for (int64_t l = 0; l < cfg.layers; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    wants.push_back({p + "input_layernorm.weight", {H}});
    wants.push_back({p + "post_attention_layernorm.weight", {H}});
    wants.push_back({p + "self_attn.q_norm.weight", {HD}});
    wants.push_back({p + "self_attn.k_norm.weight", {HD}});
    for (const auto &[module, shape] :
         {std::pair<std::string, std::vector<int64_t>>{"self_attn.q_proj", {qRows, H}},
          {"self_attn.k_proj", {kvRows, H}},
          {"self_attn.v_proj", {kvRows, H}},
          {"self_attn.o_proj", {H, qRows}},
          {"mlp.gate_proj", {I, H}},
          {"mlp.up_proj", {I, H}},
          {"mlp.down_proj", {H, I}}})
      wants.push_back({p + module + ".weight", shape, cfg.fp8.quantizes(p + module)});
  }
  auto shapeStr = [](const std::vector<int64_t> &s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i)
      r += (i ? ", " : "") + std::to_string(s[i]);
    return r + "]";
  };
  for (const Want &w : wants) {
    const TensorInfo *t = ck.find(w.name);
    if (!t)
      return Status::error(dir + ": tensor '" + w.name + "' is missing");
    if (t->shape != w.shape)
      return Status::error(t->file + ": tensor '" + w.name + "' has shape " +
                           shapeStr(t->shape) + ", config.json implies " +
                           shapeStr(w.shape));
    if (w.fp8) {
      // The official layout: F8_E4M3 [out, in] and its block scales.
      if (t->dtype != TensorDType::F8E4M3)
        return Status::error(t->file + ": tensor '" + w.name + "' is " +
                             dtypeName(t->dtype) +
                             " but config.json's quantization_config makes it F8_E4M3");
      const std::string sname = fp8ScaleName(w.name);
      const TensorInfo *sc = ck.find(sname);
      if (!sc)
        return Status::error(dir + ": tensor '" + sname + "' is missing (the block scales of '" +
                             w.name + "')");
      const std::vector<int64_t> sshape = {(w.shape[0] + cfg.fp8.blockOut - 1) / cfg.fp8.blockOut,
                                           (w.shape[1] + cfg.fp8.blockIn - 1) / cfg.fp8.blockIn};
      if (sc->shape != sshape)
        return Status::error(sc->file + ": tensor '" + sname + "' has shape " +
                             shapeStr(sc->shape) + ", its weight's blocks imply " +
                             shapeStr(sshape));
      if (sc->dtype == TensorDType::F8E4M3)
        return Status::error(sc->file + ": tensor '" + sname +
                             "' is F8_E4M3 (block scales are BF16, F16 or F32)");
      continue;
    }
    if (t->dtype == TensorDType::F8E4M3)
      return Status::error(t->file + ": tensor '" + w.name + "' is F8_E4M3 but " +
                           (cfg.fp8.enabled ? "config.json's quantization_config leaves it 16-bit"
                                            : "config.json has no FP8 quantization_config"));
    if (!(t->dtype == TensorDType::F32 ||
          (t->dtype == TensorDType::BF16 && dt == DType::BF16) ||
          (t->dtype == TensorDType::F16 && dt == DType::F16)))
      return Status::error(t->file + ": tensor '" + w.name + "' is " +
                           dtypeName(t->dtype) + " but the model runs in " +
                           std::string(toString(dt)));
  }

  return Status::ok();
}

Status Engine::Impl::loadWeights(const Checkpoint &ck) {
  const bool haveLmHead = ck.find("lm_head.weight") != nullptr;
  // Uploads the concatenation of tensors (rows stacked) into one buffer.
  std::vector<uint8_t> staging;
  auto upload = [&](std::initializer_list<std::string> names, Buffer &buf) -> Status {
    int64_t count = 0;
    for (const auto &n : names)
      count += ck.find(n)->count();
    staging.resize(count * 2);
    int64_t at = 0;
    for (const auto &n : names) {
      const TensorInfo *t = ck.find(n);
      // FP8 weights are dequantized into the model dtype here: the decode
      // step streams 16-bit weights either way.
      Status st = t->dtype == TensorDType::F8E4M3
                      ? dequantizeFp8(*t, *ck.find(fp8ScaleName(n)), cfg.fp8.blockOut,
                                      cfg.fp8.blockIn, dt, staging.data() + at)
                      : convertInto(*t, dt, staging.data() + at);
      if (!st)
        return st;
      at += t->count() * 2;
    }
    if (Status st = device->allocate(dt, count, stream, buf); !st)
      return st;
    if (Status st = stream.copyToDevice(buf, staging.data(), count * 2); !st)
      return st;
    return stream.synchronize(); // the staging buffer is reused
  };
  Status st = Status::ok();
  if (!(st = upload({"model.embed_tokens.weight"}, embed)) ||
      !(st = upload({"model.norm.weight"}, finalNorm)))
    return st;
  if (!cfg.tiedEmbeddings || haveLmHead) {
    if (!(st = upload({"lm_head.weight"}, lmHead)))
      return st;
  } else {
    lmHead = embed;
  }
  layers.resize(cfg.layers);
  for (int64_t l = 0; l < cfg.layers; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    Layer &L = layers[l];
    if (!(st = upload({p + "input_layernorm.weight"}, L.inNorm)) ||
        !(st = upload({p + "post_attention_layernorm.weight"}, L.postNorm)) ||
        !(st = upload({p + "self_attn.q_norm.weight"}, L.qNorm)) ||
        !(st = upload({p + "self_attn.k_norm.weight"}, L.kNorm)) ||
        !(st = upload({p + "self_attn.q_proj.weight", p + "self_attn.k_proj.weight",
                       p + "self_attn.v_proj.weight"},
                      L.qkv)) ||
        !(st = upload({p + "self_attn.o_proj.weight"}, L.o)) ||
        !(st = upload({p + "mlp.gate_proj.weight", p + "mlp.up_proj.weight"},
                      L.gateUp)) ||
        !(st = upload({p + "mlp.down_proj.weight"}, L.down)))
      return st;
  }
  return foldNormWeights();
}

// The input norm's weight g moves into the QKV projection, W' = W diag(g)
// rounded to the model dtype, and the post-attention norm's into the
// gate/up projection, so the decode step's GEMVs after the norms normalize
// the residual stream on the fly (gemv_rms, gemv_swiglu) with no norm
// launch, and the prompt's norms before those projections scale by ones.
// The final norm keeps its weight (the LM head may be the embedding's).
Status Engine::Impl::foldNormWeights() {
  const int64_t H = cfg.hidden, I = cfg.intermediate;
  Status st = Status::ok();
  for (const Layer &L : layers)
    if (!(st = stream.launch(kFoldNorm, {Arg::inout(L.qkv, {nqkv, H}), Arg::in(L.inNorm, {H})})) ||
        !(st = stream.launch(kFoldNorm,
                             {Arg::inout(L.gateUp, {2 * I, H}), Arg::in(L.postNorm, {H})})))
      return st;
  std::vector<uint16_t> ones(H, dt == DType::BF16 ? toBF16(1.0f) : toHalf(1.0f));
  if (!(st = device->allocate(dt, H, stream, unitNorm)) ||
      !(st = stream.copyToDevice(unitNorm, ones.data(), H * 2)))
    return st;
  return freezeWeights();
}

// The weights are final: frozen, nothing writes them again, and the kernels
// that declare them `frozen` read them through the read-only cache even when
// launched as programmatic dependents of the kernel before them.
Status Engine::Impl::freezeWeights() {
  std::vector<const Buffer *> weights = {&embed, &finalNorm, &lmHead, &unitNorm};
  for (const Layer &L : layers)
    for (const Buffer *b : {&L.inNorm, &L.postNorm, &L.qNorm, &L.kNorm, &L.qkv, &L.o,
                            &L.gateUp, &L.down})
      weights.push_back(b);
  for (const Buffer *b : weights) // lmHead may be embed: freezing twice is fine
    if (Status st = stream.freeze(*b); !st)
      return st;
  return Status::ok();
}

Status Engine::create(const std::string &modelDir, const EngineOptions &opts,
                      std::unique_ptr<Engine> &out) {
  std::unique_ptr<Engine> e(new Engine());
  Impl &m = *e->impl;
  m.opts = opts;
  if (opts.attentionKeysPerShare < 1)
    return Status::error("--attention-keys-per-share must be >= 1, got " +
                         std::to_string(opts.attentionKeysPerShare));
  if (opts.attentionGroupedFrom < 0)
    return Status::error("--attention-grouped-from must be >= 0, got " +
                         std::to_string(opts.attentionGroupedFrom));
  if (opts.attentionPrograms < 0)
    return Status::error("--attention-programs must be >= 0, got " +
                         std::to_string(opts.attentionPrograms));
  if (Status st = ModelConfig::load(modelDir, m.cfg); !st)
    return st;
  ModelConfig &c = m.cfg;
  if (c.dtype == "float32")
    return Status::error(modelDir + "/config.json: float32 models are not "
                         "supported (the kernel set is compiled for bfloat16 "
                         "and float16)");
  m.dt = c.dtype == "float16" ? DType::F16 : DType::BF16;
  if (Status st = checkSupportedShapes(c, modelDir + "/config.json"); !st)
    return st;

  // Everything about the checkpoint is validated before the device opens.
  Checkpoint ck;
  if (Status st = Checkpoint::open(modelDir, ck); !st)
    return st;
  if (Status st = m.checkWeights(ck, modelDir); !st)
    return st;

  if (Status st = Device::open(opts.device, m.device); !st)
    return st;
  m.device->setProgrammaticLaunch(opts.programmaticLaunch);
  if (opts.attentionPrograms > 0) {
    m.attentionPrograms = m.groupedAttentionPrograms = opts.attentionPrograms;
  } else if (m.device->multiprocessors() > 0) {
    m.attentionPrograms = 4 * int64_t(m.device->multiprocessors());
    m.groupedAttentionPrograms = 3 * int64_t(m.device->multiprocessors());
  }
  m.multiprocessors = m.device->multiprocessors();
  m.stream = m.device->defaultStream();
  std::string dtName = m.dt == DType::F16 ? "f16" : "bf16";
  std::string manifest = opts.kernelsDir + "/qwen3_" + dtName + ".json";
  if (Status st = m.device->loadModule(manifest, m.module); !st)
    return st;
  if (Status st = m.load(m.module, manifest, c,
                         m.dt == DType::F16 ? KernelDType::F16 : KernelDType::BF16,
                         opts.chainedLaunches);
      !st)
    return st;
  if (opts.attentionSplits > 0 && !m.hasSplits(opts.attentionSplits)) {
    std::set<int64_t> splits;
    for (const Impl::AttentionTier &t : m.tiers)
      splits.insert(t.splits);
    std::string have;
    for (int64_t s : splits)
      have += (have.empty() ? "" : ", ") + std::to_string(s);
    return Status::error("--attention-splits " + std::to_string(opts.attentionSplits) +
                         ": the kernel set has " + have);
  }

  m.nqkv = (c.heads + 2 * c.kvHeads) * c.headDim;
  auto tWeights = std::chrono::steady_clock::now();
  if (Status s = m.loadWeights(ck); !s)
    return s;
  m.weightsMs = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - tWeights).count();

  // KV cache: the requested length, else the model's, capped by what fits
  // in the memory left after the weights (keeping room for activations).
  int64_t bytesPerPosition = 2 * c.layers * c.kvHeads * c.headDim * 2;
  m.maxSeq = opts.maxSeqLen > 0 ? opts.maxSeqLen : c.maxPositions;
  if (m.maxSeq > c.maxPositions)
    return Status::error("--max-seq-len " + std::to_string(m.maxSeq) +
                         " exceeds the model's max_position_embeddings (" +
                         std::to_string(c.maxPositions) + ")");
  if (opts.maxSeqLen <= 0) {
    int64_t freeBytes = 0, totalBytes = 0;
    if (Status s = m.device->memoryInfo(freeBytes, totalBytes); !s)
      return s;
    int64_t reserve = std::max<int64_t>(int64_t(1) << 30, totalBytes / 20);
    int64_t fits = (freeBytes - reserve) / bytesPerPosition / 64 * 64;
    if (fits < 1)
      return Status::error(
          "no memory left for a KV cache after the weights (" +
          std::to_string(freeBytes >> 20) + " MiB free on " + m.device->name() +
          ")");
    m.maxSeq = std::min(m.maxSeq, fits);
  }
  m.cacheRows = (m.maxSeq + 63) / 64 * 64;
  int64_t cacheCount = c.layers * m.cacheRows * c.kvHeads * c.headDim;
  Status ak = m.device->allocate(m.dt, cacheCount, m.stream, m.kcache);
  if (ak)
    ak = m.device->allocate(m.dt, cacheCount, m.stream, m.vcache);
  if (!ak)
    return Status::error("the KV cache for " + std::to_string(m.maxSeq) +
                         " positions (" +
                         std::to_string(m.cacheRows * bytesPerPosition >> 20) +
                         " MiB) does not fit: " + ak.message() +
                         "; pass a smaller --max-seq-len");
  // Zeros, so rows past the length are finite (they meet a zero weight).
  Status st = Status::ok();
  if (!(st = m.stream.fill(m.kcache, 0)) || !(st = m.stream.fill(m.vcache, 0)))
    return st;

  // RoPE inverse frequencies exactly as HF computes them (f32).
  std::vector<float> invf(c.headDim / 2);
  for (int64_t i = 0; i < c.headDim / 2; ++i)
    invf[i] = 1.0f / std::pow(static_cast<float>(c.ropeTheta),
                              static_cast<float>(2 * i) / static_cast<float>(c.headDim));
  if (!(st = m.device->allocate(DType::F32, invf.size(), m.stream, m.invFreq)) ||
      !(st = m.stream.copyToDevice(m.invFreq, invf.data(), invf.size() * 4)) ||
      !(st = m.device->allocate(DType::I32, 1, m.stream, m.pos)) ||
      !(st = m.device->allocate(DType::I32, 1, m.stream, m.token)) ||
      !(st = m.device->allocate(DType::F32, m.normSumsCount(), m.stream, m.normSums)) ||
      !(st = m.stream.fill(m.normSums, 0)) ||
      !(st = m.device->allocate(DType::I32, c.heads, m.stream, m.tickets)) ||
      !(st = m.stream.fill(m.tickets, 0)) ||
      !(st = m.device->allocate(DType::I32, Impl::kChainCounters, m.stream, m.chainCounters)) ||
      !(st = m.stream.fill(m.chainCounters, 0)) ||
      !(st = m.allocActs(m.decodeActs, 1)) || !(st = m.stream.synchronize()))
    return st;
  out = std::move(e);
  return Status::ok();
}

Status Engine::Impl::allocActs(Acts &a, int64_t T) {
  const ModelConfig &c = cfg;
  a = Acts();
  a.cap = T;
  int64_t nq = c.heads * c.headDim;
  int64_t nparts = (c.vocabSize + argmaxChunk - 1) / argmaxChunk;
  Status st = Status::ok();
  auto alloc = [&](DType t, int64_t n, Buffer &b) {
    if (st)
      st = device->allocate(t, n, stream, b);
  };
  alloc(dt, T * c.hidden, a.res);
  alloc(dt, T * c.hidden, a.h);
  alloc(dt, T * (c.heads + 2 * c.kvHeads) * c.headDim, a.qkv);
  alloc(dt, T * nq, a.q);
  alloc(dt, T * nq, a.attn);
  alloc(dt, T * c.hidden, a.ao);
  // Decode's gate/up GEMV writes the activation itself, as the prompt's
  // fused GEMM does.
  if (T > 1 && !fusedSwiglu())
    alloc(dt, T * 2 * c.intermediate, a.gu);
  alloc(dt, T * c.intermediate, a.act);
  if (T > 1 && opts.ropeTable) {
    alloc(dt, T * c.headDim, a.ropeCos);
    alloc(dt, T * c.headDim, a.ropeSin);
  }
  alloc(dt, T * c.hidden, a.mo);
  alloc(dt, c.vocabSize, a.logits);
  // Partials for the largest split count; each tier uses its front.
  int64_t splits = 0;
  for (const AttentionTier &t : tiers)
    splits = std::max(splits, t.splits);
  alloc(DType::F32, c.heads * splits * c.headDim, a.po);
  alloc(DType::F32, c.heads * splits, a.plse);
  alloc(DType::F32, nparts, a.vals);
  alloc(DType::I32, nparts, a.idxs);
  alloc(DType::I32, T, a.ids);
  return st;
}


Status Engine::setSampling(const Sampling &sampling) {
  Impl &m = *impl;
  if (sampling.enabled) {
    if (!(sampling.temperature > 0) || !std::isfinite(sampling.temperature))
      return Status::error("temperature must be > 0, got " +
                           std::to_string(sampling.temperature));
    if (!(sampling.topP > 0 && sampling.topP <= 1))
      return Status::error("top-p must be in (0, 1], got " +
                           std::to_string(sampling.topP));
    if (sampling.topK < 0 || sampling.topK > (int64_t(1) << 24))
      return Status::error("top-k must be in [0, 2^24], got " +
                           std::to_string(sampling.topK));
  }
  m.sampling = sampling;
  for (Impl::AttentionTier &t : m.tiers)
    t.graphReady = false; // the captured steps launched the old picker
  return Status::ok();
}

Status Engine::prefill(const std::vector<int32_t> &ids, int32_t &next) {
  Impl &m = *impl;
  int64_t T = static_cast<int64_t>(ids.size());
  if (T == 0)
    return Status::error("the prompt is empty");
  if (T > m.maxSeq)
    return Status::error("the prompt has " + std::to_string(T) +
                         " tokens, more than --max-seq-len " +
                         std::to_string(m.maxSeq));
  Status st = Status::ok();
  if (T != m.prefillActs.cap)
    if (!(st = m.allocActs(m.prefillActs, T)))
      return st;
  int32_t zero = 0;
  if (!(st = m.stream.copyToDevice(m.prefillActs.ids, ids.data(), T * 4)) ||
      !(st = m.stream.copyToDevice(m.pos, &zero, 4)))
    return st;
  m.position = 0;
  m.deviceToken = -1; // unknown until the pick is read back
  if (!(st = m.forward(m.prefillActs, T, m.prefillActs.ids)) ||
      !(st = m.stream.copyToHost(&next, m.token, 4)) || !(st = m.stream.synchronize()))
    return st;
  m.deviceToken = next;
  m.position = T;
  return Status::ok();
}

Status Engine::decode(int32_t token, int32_t &next) {
  Impl &m = *impl;
  if (m.position >= m.maxSeq)
    return Status::error("the sequence reached --max-seq-len " +
                         std::to_string(m.maxSeq));
  Status st = Status::ok();
  // The graph reads `token`, where the last step left its pick; only a
  // different token from the caller (teacher forcing, an API user's own
  // choice) is uploaded.
  if (token != m.deviceToken) {
    if (!(st = m.stream.copyToDevice(m.token, &token, 4)))
      return st;
    m.deviceToken = token;
  }
  Impl::AttentionTier &A = m.tiers[m.pickTier(m.position)];
  if (m.opts.useGraph && !A.graphReady) {
    if (!(st = m.stream.beginCapture()))
      return st;
    Status fs = m.forward(m.decodeActs, 1, m.token);
    Status es = m.stream.endCapture(A.graph);
    if (!fs)
      return fs;
    if (!es)
      return es;
    A.graphReady = true;
  }
  if (A.graphReady)
    st = A.graph.replay(m.stream);
  else
    st = m.forward(m.decodeActs, 1, m.token);
  m.deviceToken = -1;
  if (!st || !(st = m.stream.copyToHost(&next, m.token, 4)) ||
      !(st = m.stream.synchronize()))
    return st;
  m.deviceToken = next;
  ++m.position;
  m.last = &m.decodeActs;
  return Status::ok();
}

Status Engine::lastLogits(std::vector<float> &logits) {
  Impl &m = *impl;
  if (!m.last)
    return Status::error("no step has run yet");
  const Buffer &b = m.last->logits;
  std::vector<uint16_t> raw(m.cfg.vocabSize);
  Status st = m.stream.copyToHost(raw.data(), b, raw.size() * 2);
  if (!st || !(st = m.stream.synchronize()))
    return st;
  logits.resize(raw.size());
  for (size_t i = 0; i < raw.size(); ++i)
    logits[i] = m.dt == DType::BF16 ? fromBF16(raw[i]) : fromHalf(raw[i]);
  return Status::ok();
}

Status Engine::profileDecode(std::vector<KernelTime> &times) {
  Impl &m = *impl;
  times.clear();
  int32_t pos32 = static_cast<int32_t>(m.position), tok = 0;
  Status st = m.stream.copyToHost(&tok, m.token, 4);
  if (!st || !(st = m.stream.synchronize()))
    return st;
  m.profile = &times;
  st = m.forward(m.decodeActs, 1, m.token);
  m.profile = nullptr;
  if (!st)
    return st;
  // Undo the step: the position and the token it consumed.
  if (!(st = m.stream.copyToDevice(m.pos, &pos32, 4)) ||
      !(st = m.stream.copyToDevice(m.token, &tok, 4)))
    return st;
  return m.stream.synchronize();
}

Status Engine::profilePrefill(const std::vector<int32_t> &ids,
                              std::vector<KernelTime> &times) {
  times.clear();
  impl->profile = &times;
  int32_t next = 0;
  Status st = prefill(ids, next);
  impl->profile = nullptr;
  return st;
}

Status Engine::copyBandwidth(double &bytesPerSecond) {
  Impl &m = *impl;
  bytesPerSecond = 0;
  const int64_t bytes = int64_t(256) << 20;
  Buffer a, b;
  if (!m.device->allocate(DType::I8, bytes, m.stream, a) ||
      !m.device->allocate(DType::I8, bytes, m.stream, b))
    return Status::ok(); // no room: no figure
  Status st = m.stream.fill(a, 1);
  if (!st || !(st = m.stream.copy(b, a, bytes)) || !(st = m.stream.synchronize()))
    return st;
  std::vector<double> ms;
  for (int i = 0; i < 9; ++i) {
    Event e0, e1;
    float t = 0;
    if (!(st = m.stream.record(e0)) || !(st = m.stream.copy(b, a, bytes)) ||
        !(st = m.stream.record(e1)) || !(st = e1.wait()) ||
        !(st = e1.elapsedMs(e0, t)))
      return st;
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  if (ms[4] > 0)
    bytesPerSecond = 2.0 * bytes / (ms[4] * 1e-3);
  return Status::ok();
}

} // namespace qwen3
