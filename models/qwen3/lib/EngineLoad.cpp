//===- EngineLoad.cpp - checking a checkpoint, loading a shard ------------===//
//
// The checkpoint is checked whole against config.json before any device
// opens; each shard then opens its device, loads the kernels its slice of
// the model launches, and uploads only its slices of the tensors (rows of
// the column-parallel projections, columns of the row-parallel ones, rows
// of the LM head), read from the mapped files.
//
//===----------------------------------------------------------------------===//

#include "EngineShard.h"

#include "Fp8.h"

#include "qwen3/KernelTable.h"
#include "tile/runtime/Half.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace qwen3 {

using namespace tile_runtime;

namespace {

/// `n` elements of checkpoint data in `from` at `src`, into the model dtype
/// `to` at `dst`. Only exact or widening-then-rounding conversions: F32 ->
/// bf16/f16 rounds to nearest even (an F32 tensor in a bf16 checkpoint);
/// bf16 <-> f16 is refused, since it would silently lose range or
/// precision.
bool convertElements(const uint8_t *src, TensorDType from, int64_t n, DType to,
                     uint8_t *dst) {
  if ((from == TensorDType::BF16 && to == DType::BF16) ||
      (from == TensorDType::F16 && to == DType::F16)) {
    std::memcpy(dst, src, size_t(n) * 2);
    return true;
  }
  if (from != TensorDType::F32)
    return false;
  auto *out = reinterpret_cast<uint16_t *>(dst);
  for (int64_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, src + 4 * i, 4);
    out[i] = to == DType::BF16 ? toBF16(f) : toHalf(f);
  }
  return true;
}

int64_t elementBytes(TensorDType t) {
  return t == TensorDType::F32 ? 4 : t == TensorDType::F8E4M3 ? 1 : 2;
}

/// The part of a tensor a shard holds: rows [row0, row0 + rows) and columns
/// [col0, col0 + cols) of a matrix (rows or cols < 0: all of them); a
/// vector always whole.
struct Piece {
  std::string name;
  int64_t row0 = 0, rows = -1, col0 = 0, cols = -1;
};

} // namespace

// Every tensor is found and its shape and dtype checked against the config
// before the device opens, so a broken checkpoint is reported as such on a
// machine whose device would also fail.
Status checkWeights(const ModelConfig &cfg, DType dt, const Checkpoint &ck,
                    const std::string &dir) {
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

Status EngineShard::open(Device &dev, const ModelConfig &full, DType dtype,
                         const EngineOptions &options, ShardPlace where) {
  device = &dev;
  opts = options;
  dt = dtype;
  place = where;
  cfg = full;
  cfg.heads /= place.ranks;
  cfg.kvHeads /= place.ranks;
  cfg.intermediate /= place.ranks;
  vocabRows = full.vocabSize / place.ranks;
  maxRows = opts.maxBatch;
  maxChunk = opts.maxBatch > 1 ? opts.stepPromptTokens : 0;
  device->setProgrammaticLaunch(opts.programmaticLaunch);
  if (opts.attentionPrograms > 0) {
    attentionPrograms = groupedAttentionPrograms = opts.attentionPrograms;
  } else if (device->multiprocessors() > 0) {
    attentionPrograms = 4 * int64_t(device->multiprocessors());
    groupedAttentionPrograms = 3 * int64_t(device->multiprocessors());
  }
  multiprocessors = device->multiprocessors();
  stream = device->defaultStream();
  std::string dtName = dt == DType::F16 ? "f16" : "bf16";
  std::string manifest = opts.kernelsDir + "/qwen3_" + dtName + ".json";
  if (Status st = device->loadModule(manifest, module); !st)
    return st;
  const bool fp8 = opts.weights == EngineOptions::Weights::Fp8 ||
                   (opts.weights == EngineOptions::Weights::Stored && cfg.fp8.enabled);
  if (Status st = load(module, manifest, cfg,
                       dt == DType::F16 ? KernelDType::F16 : KernelDType::BF16, fp8);
      !st)
    return st;
  if (opts.attentionSplits > 0 && !hasSplits(opts.attentionSplits)) {
    std::set<int64_t> splits;
    for (const AttentionTier &t : tiers)
      splits.insert(t.splits);
    std::string have;
    for (int64_t s : splits)
      have += (have.empty() ? "" : ", ") + std::to_string(s);
    return Status::error("--attention-splits " + std::to_string(opts.attentionSplits) +
                         ": the kernel set has " + have);
  }
  nqkv = (cfg.heads + 2 * cfg.kvHeads) * cfg.headDim;
  return Status::ok();
}

Status EngineShard::loadWeights(const Checkpoint &ck,
                                const std::function<void()> &layerDone) {
  const int64_t r = place.rank;
  const int64_t HD = cfg.headDim, qRows = cfg.heads * HD, kvRows = cfg.kvHeads * HD,
                I = cfg.intermediate;
  const bool haveLmHead = ck.find("lm_head.weight") != nullptr;
  auto extent = [&](const Piece &p, int64_t &rows, int64_t &cols) {
    const TensorInfo *t = ck.find(p.name);
    const int64_t R = t->shape[0], C = t->shape.size() > 1 ? t->shape[1] : 1;
    rows = p.rows < 0 ? R : p.rows;
    cols = p.cols < 0 ? C : p.cols;
  };
  // Uploads the pieces (rows stacked) into one buffer of the model dtype.
  std::vector<uint8_t> staging, whole;
  auto upload = [&](const std::vector<Piece> &pieces, Buffer &buf) -> Status {
    int64_t count = 0;
    for (const Piece &p : pieces) {
      int64_t rows, cols;
      extent(p, rows, cols);
      count += rows * cols;
    }
    staging.resize(count * 2);
    int64_t at = 0;
    for (const Piece &p : pieces) {
      const TensorInfo *t = ck.find(p.name);
      const int64_t C = t->shape.size() > 1 ? t->shape[1] : 1;
      int64_t rows, cols;
      extent(p, rows, cols);
      // FP8 weights held in 16 bits are dequantized whole first, then sliced.
      const uint8_t *src = t->data;
      TensorDType from = t->dtype;
      if (t->dtype == TensorDType::F8E4M3) {
        whole.resize(t->count() * 2);
        if (Status st = dequantizeFp8(*t, *ck.find(fp8ScaleName(p.name)), cfg.fp8.blockOut,
                                      cfg.fp8.blockIn, dt, whole.data());
            !st)
          return st;
        src = whole.data();
        from = dt == DType::BF16 ? TensorDType::BF16 : TensorDType::F16;
      }
      const int64_t eb = elementBytes(from);
      for (int64_t i = 0; i < rows; ++i)
        if (!convertElements(src + ((p.row0 + i) * C + p.col0) * eb, from, cols, dt,
                             staging.data() + (at + i * cols) * 2))
          return Status::error(t->file + ": tensor '" + t->name + "' is " +
                               dtypeName(t->dtype) + " but the model runs in " +
                               std::string(toString(dt)) +
                               " (no lossy conversion between bf16 and f16)");
      at += rows * cols;
    }
    if (Status st = device->allocate(dt, count, stream, buf); !st)
      return st;
    if (Status st = stream.copyToDevice(buf, staging.data(), count * 2); !st)
      return st;
    return stream.synchronize(); // the staging buffer is reused
  };
  // Whether a projection's pieces are held in FP8: each stored in FP8 (or
  // any, when opts.weights quantizes at load) and whole 128 x 128 blocks,
  // so that the pieces' block scales stack as their rows do and the FP8
  // GEMVs' tiles never straddle a block.
  auto heldInFp8 = [&](const std::vector<Piece> &pieces) {
    if (opts.weights == EngineOptions::Weights::Dequantized)
      return false;
    for (const Piece &p : pieces) {
      const TensorInfo *t = ck.find(p.name);
      if (opts.weights == EngineOptions::Weights::Stored && t->dtype != TensorDType::F8E4M3)
        return false;
      if (t->dtype == TensorDType::F8E4M3 && (cfg.fp8.blockOut != 128 || cfg.fp8.blockIn != 128))
        return false;
      int64_t rows, cols;
      extent(p, rows, cols);
      if (p.row0 % 128 || p.col0 % 128 || rows % 128 || cols % 128)
        return false;
    }
    return true;
  };
  // Uploads the pieces as FP8 bytes (rows stacked) and their block scales
  // (block rows stacked) in f32; 16-bit pieces are quantized 128 rows at a
  // time.
  std::vector<uint8_t> bytes;
  std::vector<float> scales;
  auto uploadFp8 = [&](const std::vector<Piece> &pieces, Projection &proj) -> Status {
    int64_t count = 0, cols = 0;
    for (const Piece &p : pieces) {
      int64_t rows;
      extent(p, rows, cols);
      count += rows * cols;
    }
    const int64_t bcols = cols / 128;
    bytes.resize(count);
    scales.resize(count / (128 * 128));
    int64_t at = 0;
    for (const Piece &p : pieces) {
      const TensorInfo *t = ck.find(p.name);
      const int64_t C = t->shape[1];
      int64_t rows, pcols;
      extent(p, rows, pcols);
      uint8_t *out = bytes.data() + at * cols;
      float *outScales = scales.data() + at / 128 * bcols;
      if (t->dtype == TensorDType::F8E4M3) {
        for (int64_t i = 0; i < rows; ++i) {
          const uint8_t *src = t->data + (p.row0 + i) * C + p.col0;
          for (int64_t c = 0; c < cols; ++c)
            if ((src[c] & 0x7F) == 0x7F)
              return Status::error(t->file + ": tensor '" + t->name + "' holds NaN at [" +
                                   std::to_string(p.row0 + i) + ", " +
                                   std::to_string(p.col0 + c) + "]");
          std::memcpy(out + i * cols, src, size_t(cols));
        }
        if (Status st = readFp8Scales(*ck.find(fp8ScaleName(p.name)), p.row0 / 128, rows / 128,
                                      p.col0 / 128, bcols, outScales);
            !st)
          return st;
      } else {
        quantizeFp8Matrix(t->data + (p.row0 * C + p.col0) * elementBytes(t->dtype), t->dtype, C,
                          rows, cols, out, outScales);
      }
      at += rows;
    }
    proj.fp8 = true;
    Status st = Status::ok();
    if (!(st = device->allocate(DType::F8E4M3, count, stream, proj.w)) ||
        !(st = stream.copyToDevice(proj.w, bytes.data(), count)) ||
        !(st = device->allocate(DType::F32, int64_t(scales.size()), stream, proj.scale)) ||
        !(st = stream.copyToDevice(proj.scale, scales.data(), scales.size() * 4)))
      return st;
    return stream.synchronize(); // the staging buffers are reused
  };
  auto uploadProjection = [&](const std::vector<Piece> &pieces, Projection &proj) {
    return heldInFp8(pieces) ? uploadFp8(pieces, proj) : upload(pieces, proj.w);
  };
  auto rowsOf = [](std::string name, int64_t row0, int64_t rows) {
    return Piece{std::move(name), row0, rows, 0, -1};
  };
  auto colsOf = [](std::string name, int64_t col0, int64_t cols) {
    return Piece{std::move(name), 0, -1, col0, cols};
  };
  Status st = Status::ok();
  if (!(st = upload({{"model.embed_tokens.weight"}}, embed)) ||
      !(st = upload({{"model.norm.weight"}}, finalNorm)))
    return st;
  const std::string head =
      !cfg.tiedEmbeddings || haveLmHead ? "lm_head.weight" : "model.embed_tokens.weight";
  if (place.ranks == 1 && head == "model.embed_tokens.weight")
    lmHead = embed;
  else if (!(st = upload({rowsOf(head, r * vocabRows, vocabRows)}, lmHead)))
    return st;
  layers.resize(cfg.layers);
  for (int64_t l = 0; l < cfg.layers; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    Layer &L = layers[l];
    if (!(st = upload({{p + "input_layernorm.weight"}}, L.inNorm)) ||
        !(st = upload({{p + "post_attention_layernorm.weight"}}, L.postNorm)) ||
        !(st = upload({{p + "self_attn.q_norm.weight"}}, L.qNorm)) ||
        !(st = upload({{p + "self_attn.k_norm.weight"}}, L.kNorm)) ||
        // Column-parallel: this rank's heads and KV heads, its slice of
        // the intermediate rows (gate then up, as the kernels pair them).
        !(st = uploadProjection({rowsOf(p + "self_attn.q_proj.weight", r * qRows, qRows),
                                 rowsOf(p + "self_attn.k_proj.weight", r * kvRows, kvRows),
                                 rowsOf(p + "self_attn.v_proj.weight", r * kvRows, kvRows)},
                                L.qkv)) ||
        // Row-parallel: the input columns of this rank's heads and slice.
        !(st = uploadProjection({colsOf(p + "self_attn.o_proj.weight", r * qRows, qRows)},
                                L.o)) ||
        !(st = uploadProjection({rowsOf(p + "mlp.gate_proj.weight", r * I, I),
                                 rowsOf(p + "mlp.up_proj.weight", r * I, I)},
                                L.gateUp)) ||
        !(st = uploadProjection({colsOf(p + "mlp.down_proj.weight", r * I, I)}, L.down)))
      return st;
    layerDone();
  }
  return foldNormWeights();
}

int64_t EngineShard::largestFp8Projection() const {
  int64_t most = 0;
  for (const Layer &L : layers)
    for (const ProjectionShape &s : projectionShapes())
      if ((L.*s.projection).fp8)
        most = std::max(most, s.n * s.k);
  return most;
}

// The input norm's weight g moves into the QKV projection, W' = W diag(g)
// rounded to the model dtype, and the post-attention norm's into the
// gate/up projection, so the decode step's GEMVs after the norms normalize
// the residual stream on the fly (gemv_rms, gemv_swiglu) with no norm
// launch, and the prompt's norms before those projections scale by ones.
// The final norm keeps its weight (the LM head may be the embedding's).
Status EngineShard::foldNormWeights() {
  const int64_t H = cfg.hidden, I = cfg.intermediate;
  Status st = Status::ok();
  // FP8 projections keep their norm's weight apart (the FP8 GEMVs take it).
  for (const Layer &L : layers)
    if ((!L.qkv.fp8 &&
         !(st = stream.launch(kFoldNorm, {Arg::inout(L.qkv.w, {nqkv, H}),
                                          Arg::in(L.inNorm, {H})}))) ||
        (!L.gateUp.fp8 &&
         !(st = stream.launch(kFoldNorm, {Arg::inout(L.gateUp.w, {2 * I, H}),
                                          Arg::in(L.postNorm, {H})}))))
      return st;
  const int64_t ones = std::max({H, cfg.heads * cfg.headDim, I});
  std::vector<uint16_t> one(ones, dt == DType::BF16 ? toBF16(1.0f) : toHalf(1.0f));
  if (!(st = device->allocate(dt, ones, stream, unitNorm)) ||
      !(st = stream.copyToDevice(unitNorm, one.data(), ones * 2)))
    return st;
  if (!(st = freezeWeights()))
    return st;
  return dequantizeResident();
}

// Each FP8 projection's 16-bit copy for the GEMMs, made once (from the
// frozen weights) with the kernel and the norm weight promptWeight would
// dequantize it with before each GEMM, so the GEMMs read the same weights
// either way; then frozen like every weight.
Status EngineShard::dequantizeResident() {
  using Where = EngineOptions::Fp8GemmWeights;
  int64_t copies = 0; // bytes
  for (const Layer &L : layers)
    for (const ProjectionShape &s : projectionShapes())
      if ((L.*s.projection).fp8)
        copies += 2 * s.n * s.k;
  fp8Resident = copies > 0 && opts.fp8GemmWeights == Where::Resident;
  if (copies > 0 && opts.fp8GemmWeights == Where::Auto) {
    int64_t freeBytes = 0, totalBytes = 0;
    if (Status s = device->memoryInfo(freeBytes, totalBytes); !s)
      return s;
    fp8Resident = copies <= freeBytes / 4;
  }
  if (!fp8Resident)
    return Status::ok();
  for (Layer &L : layers)
    for (const ProjectionShape &s : projectionShapes()) {
      Projection &p = L.*s.projection;
      if (!p.fp8)
        continue;
      Status st = device->allocate(dt, s.n * s.k, stream, p.w16);
      if (st) {
        const std::array<Arg, 4> args =
            dequantizeArgs(p, s.n, s.k, s.norm ? L.*s.norm : unitNorm, p.w16);
        st = stream.launch(kDequantFp8, args.data(), args.size());
      }
      if (st)
        st = stream.freeze(p.w16);
      if (!st)
        return st;
    }
  return Status::ok();
}

// The weights are final: frozen, nothing writes them again, and the kernels
// that declare them `frozen` read them through the read-only cache even when
// launched as programmatic dependents of the kernel before them.
Status EngineShard::freezeWeights() {
  std::vector<const Buffer *> weights = {&embed, &finalNorm, &lmHead, &unitNorm};
  for (const Layer &L : layers) {
    for (const Buffer *b : {&L.inNorm, &L.postNorm, &L.qNorm, &L.kNorm})
      weights.push_back(b);
    for (const Projection *p : {&L.qkv, &L.o, &L.gateUp, &L.down}) {
      weights.push_back(&p->w);
      if (p->fp8)
        weights.push_back(&p->scale);
    }
  }
  for (const Buffer *b : weights) // lmHead may be embed: freezing twice is fine
    if (Status st = stream.freeze(*b); !st)
      return st;
  return Status::ok();
}

Status EngineShard::cacheBudget(int64_t &positions) {
  const int64_t bytesPerPosition = kvBytesPerPosition(cfg, cfg.kvHeads);
  int64_t freeBytes = 0, totalBytes = 0;
  if (Status s = device->memoryInfo(freeBytes, totalBytes); !s)
    return s;
  // Room for the activations and the prompt's buffers (with the 16-bit
  // copy of an FP8 projection).
  int64_t reserve = std::max<int64_t>(int64_t(1) << 30, totalBytes / 20) +
                    fp8GemmScratch() * 2;
  // Room for the batched step's rows, then the positions of every slot.
  reserve += maxRows * (cfg.vocabSize * 2 + 16 * (cfg.hidden + cfg.intermediate +
                                                  cfg.heads * cfg.headDim * (kBatchSplits + 2)));
  positions = (freeBytes - reserve) / cacheContexts(maxRows) / bytesPerPosition / 64 * 64;
  if (positions < 1)
    return Status::error("no memory left for a KV cache after the weights (" +
                         std::to_string(freeBytes >> 20) + " MiB free on " +
                         device->name() + ")");
  return Status::ok();
}

Status EngineShard::allocState(int64_t maxSeqLen, int64_t pageCount) {
  const ModelConfig &c = cfg;
  maxSeq = maxSeqLen;
  cacheRows = (maxSeq + 63) / 64 * 64;
  const int64_t bytesPerPosition = kvBytesPerPosition(c, c.kvHeads);
  poolPages = pageCount;
  int64_t cacheCount = c.layers * layerRows() * c.kvHeads * c.headDim;
  Status ak = device->allocate(dt, cacheCount, stream, kcache);
  if (ak)
    ak = device->allocate(dt, cacheCount, stream, vcache);
  if (!ak)
    return Status::error("the KV cache for " + std::to_string(layerRows()) +
                         " positions (" +
                         std::to_string(layerRows() * bytesPerPosition >> 20) +
                         " MiB) does not fit: " + ak.message() +
                         "; pass a smaller --max-seq-len or --kv-cache-memory");
  // Zeros, so rows past the length are finite (they meet a zero weight).
  Status st = Status::ok();
  if (!(st = stream.fill(kcache, 0)) || !(st = stream.fill(vcache, 0)))
    return st;
  if (pages() > 0) {
    const int64_t n = pagesPerSequence();
    std::vector<int32_t> distinct(n);
    for (int64_t i = 0; i < n; ++i)
      distinct[i] = static_cast<int32_t>(i);
    if (!(st = device->allocate(DType::I32, n, stream, scatterPages)) ||
        !(st = device->allocate(DType::I32, n, stream, gatherPages)) ||
        !(st = stream.copyToDevice(scatterPages, distinct.data(), n * 4)) ||
        !(st = stream.makeTable(scatterPages)))
      return st;
  }

  // RoPE inverse frequencies exactly as HF computes them (f32).
  std::vector<float> invf(c.headDim / 2);
  for (int64_t i = 0; i < c.headDim / 2; ++i)
    invf[i] = 1.0f / std::pow(static_cast<float>(c.ropeTheta),
                              static_cast<float>(2 * i) / static_cast<float>(c.headDim));
  if (!(st = device->allocate(DType::F32, invf.size(), stream, invFreq)) ||
      !(st = stream.copyToDevice(invFreq, invf.data(), invf.size() * 4)) ||
      !(st = device->allocate(DType::I32, 1, stream, pos)) ||
      !(st = device->allocate(DType::I32, 1, stream, token)) ||
      !(st = device->allocate(DType::F32, normSumsCount(), stream, normSums)) ||
      !(st = stream.fill(normSums, 0)) ||
      !(st = device->allocate(DType::I32, c.heads, stream, tickets)) ||
      !(st = stream.fill(tickets, 0)) ||
      !(st = allocActs(decodeActs, 1)) || !(st = allocBatch()))
    return st;
  if (const int64_t fp8 = fp8GemmScratch())
    if (!(st = device->allocate(dt, fp8, stream, weight16)))
      return st;
  return stream.synchronize();
}

Status EngineShard::allocActs(Acts &a, int64_t T) {
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
  // The GEMMs' operands hold P >= T rows: a prompt of up to 256 tokens
  // runs them in one of gemm_few's tiles of tokens (linear), the rows past
  // the prompt's zero (computed, never read).
  const int64_t P = T > 1 ? std::max(T, kernels::fewTokens(T)) : T;
  alloc(dt, T * c.hidden, a.res);
  alloc(dt, P * c.hidden, a.h);
  alloc(dt, P * (c.heads + 2 * c.kvHeads) * c.headDim, a.qkv);
  alloc(dt, T * nq, a.q);
  alloc(dt, P * nq, a.attn);
  alloc(dt, P * c.hidden, a.ao);
  // Decode's gate/up GEMV and the prompt's gate/up GEMM write the
  // activation itself, never the [T, 2I] projection.
  alloc(dt, P * c.intermediate, a.act);
  if (T > 1) {
    alloc(dt, T * c.headDim, a.ropeCos);
    alloc(dt, T * c.headDim, a.ropeSin);
  }
  alloc(dt, P * c.hidden, a.mo);
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
  if (P > T)
    for (const Buffer *b : {&a.h, &a.attn, &a.act})
      if (st)
        st = stream.fill(*b, 0);
  return st;
}


} // namespace qwen3
