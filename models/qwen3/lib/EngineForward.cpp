//===- EngineForward.cpp - Qwen3 forward passes on tile kernels -----------===//
//
// What one step launches: the prompt's prefill (GEMMs over all tokens) and
// the decode step (GEMVs with the norms and residual adds inside, split-KV
// attention), then the next token's pick.
//
//===----------------------------------------------------------------------===//

#include "EngineShard.h"

#include <cmath>

namespace qwen3 {

Status EngineShard::linear(int64_t T, const Buffer &x, int64_t k, const Buffer &w,
                           int64_t n, const Buffer &y, int64_t xOffset, int64_t yOffset) {
  if (T == 1)
    return launch(pickGemv(k, n), {Arg::in(x, {1, k}, {}, xOffset), Arg::in(w, {n, k}),
                                   Arg::out(y, {1, n}, {}, yOffset)},
                  2.0 * (n * k + k + n));
  // A prompt of up to 256 tokens as the batched step runs its rows: one
  // tile of tokens, W's rows as the dot's A, so the weights stream on
  // n / 64 programs instead of n / 128 or n / 256 (the prompt's acts hold
  // the tile's rows: allocActs).
  if (const int64_t P = kernels::fewTokens(T); P > 0 && xOffset == 0 && yOffset == 0)
    return launch(kGemmFew.at(P), {Arg::in(x, {P, k}), Arg::in(w, {n, k}), Arg::out(y, {P, n})},
                  2.0 * (n * k + T * (k + n)));
  return launch(pickGemm(T, n), {Arg::in(x, {T, k}, {}, xOffset), Arg::in(w, {n, k}),
                                 Arg::out(y, {T, n}, {}, yOffset)});
}

// An FP8 projection's prompt GEMM reads its 16-bit dequantization, made
// just before into the one scratch every FP8 projection shares (each GEMM
// is done with it before the next dequantization, in stream order), with
// the norm weight before it folded in as the 16-bit weights have theirs.
Status EngineShard::promptWeight(const Projection &p, int64_t n, int64_t k, const Buffer *norm,
                                 const Buffer *&w) {
  w = &p.w;
  if (!p.fp8)
    return Status::ok();
  if (p.w16.valid()) {
    w = &p.w16;
    return Status::ok();
  }
  w = &weight16;
  const std::array<Arg, 4> args = dequantizeArgs(p, n, k, norm ? *norm : unitNorm, weight16);
  return launch(kDequantFp8, args.data(), args.size(), n * k * 3.0 + n * k / 4096.0);
}

const Kernel &EngineShard::pickGemm(int64_t T, int64_t n) const {
  if (multiprocessors <= 0)
    return kGemm;
  auto rounds = [&](int64_t bn) {
    int64_t tiles = ((T + 127) / 128) * ((n + bn - 1) / bn);
    return (tiles + multiprocessors - 1) / multiprocessors;
  };
  return rounds(128) < 2 * rounds(256) ? kGemmNarrow : kGemm;
}

// The decode step: per layer, the QKV GEMV (the input norm inside it),
// attention (the query's QK-norm and RoPE inside it, the token's own key
// and value taken from the QKV row as its last share, its shares merged by
// the last of each head to finish), the output GEMV adding to the residual
// stream and writing the token's K/V into the caches, the gate/up GEMV
// (the post-attention norm inside it) with SwiGLU in its epilogue, the down
// GEMV adding to the residual stream: 5 launches. (The grouped attention,
// at long contexts, merges in a launch of its own that also writes the
// K/V: 6.) `res`
// is the residual stream throughout; the norms' weights are folded into
// the projections after them (foldNormWeights), and each norm's sum of
// squares is added up by the launches that write `res` (normSums). (Folding
// SwiGLU into the down GEMV's loop measured slower: bench/results.)
// `bytes` below is what each launch must move at least, for the profile.
Status EngineShard::decodeLayers(Acts &a, const Buffer &ids) {
  const ModelConfig &c = cfg;
  const int64_t H = c.hidden, I = c.intermediate, HD = c.headDim;
  const int64_t nq = c.heads * HD, kvw = c.kvHeads * HD;
  const float eps = static_cast<float>(c.rmsEps);
  const float scale = 1.0f / std::sqrt(static_cast<float>(HD));
  const double len = static_cast<double>(position + 1);
  // The step's tier, from the position it runs at (the graph captured for
  // a tier was captured at a position that picks it).
  const AttentionTier &A = tiers[pickTier(position)];
  const int64_t splits = A.splits;
  // The sum of squares of the residual stream before norm `i` (2l: layer
  // l's input norm, 2l + 1: its post-attention norm), to add into or read.
  auto sumsTo = [&](int64_t i) { return Arg::add(normSums, {1}, {}, normSlot(i)); };
  auto sumsOf = [&](int64_t i) { return Arg::in(normSums, {1}, {}, normSlot(i)); };
  // The bytes of an [n, k] weight: 16-bit, or FP8 with a 4-byte scale per
  // 128 x 128 block.
  auto weightBytes = [](const Projection &p, int64_t n, int64_t k) {
    return p.fp8 ? n * k * (1.0 + 4.0 / (128 * 128)) : 2.0 * n * k;
  };
  // Tensor parallelism (EngineExchange.cpp): the row-parallel
  // projections add their partials into partialRow, and completeRow
  // all-reduces them into the stream after each; `exchanges` counts the
  // step's all-reduces so far.
  int64_t exchanges = 0;
  auto partialRow = [&]() { return partialResidualRow(a, exchanges); };
  auto partialSums = [&](int64_t i) { return sumsTo(partialNormSlot(i)); };
  auto clearPartial = [&]() { return clearPartialRow(a); };
  auto completeRow = [&](int64_t i) {
    return place.ranks > 1 ? completeResidualRow(a, i, exchanges++) : Status::ok();
  };
  // x W^T added to the residual stream (or this rank's partial row), its
  // squares to the sum of norm i.
  auto gemvAdd = [&](const Buffer &x, int64_t k, const Projection &w, int64_t i) {
    const double bytes = weightBytes(w, H, k) + 2.0 * (k + 2 * H);
    if (w.fp8)
      return launch(gemvResidualFp8.pick(k, H),
                    {Arg::in(x, {1, k}), Arg::in(w.w, {H, k}), Arg::in(w.scale, {H / 128, k / 128}),
                     partialRow(), partialSums(i)},
                    bytes);
    return launch(gemvResidual.pick(k, H),
                  {Arg::in(x, {1, k}), Arg::in(w.w, {H, k}), partialRow(), partialSums(i)},
                  bytes);
  };
  // h = rmsnorm(residual stream) * w.
  auto norm = [&](const Buffer &w) {
    return launch(kRms, {Arg::in(a.res, {1, H}), Arg::in(w, {H}), Arg::out(a.h, {1, H}),
                         Arg::real(eps)},
                  2.0 * 3 * H);
  };
  Status st = Status::ok();
#define TRY(x)                                                                 \
  if (!(st = (x)))                                                             \
    return st;
  TRY(launch(kEmbedSumsq, {Arg::in(ids, {1}), Arg::in(embed, {c.vocabSize, H}),
                           Arg::out(a.res, {1, H}), sumsTo(0)},
             2.0 * H * 2));
  for (int64_t l = 0; l < c.layers; ++l) {
    const Layer &L = layers[l];
    const double qkvBytes = weightBytes(L.qkv, nqkv, H) + 2.0 * (H + nqkv);
    if (L.qkv.fp8) {
      TRY(launch(gemvRmsFp8.pick(H, nqkv),
                 {Arg::in(a.res, {1, H}), Arg::in(L.inNorm, {1, H}), Arg::in(L.qkv.w, {nqkv, H}),
                  Arg::in(L.qkv.scale, {nqkv / 128, H / 128}), Arg::out(a.qkv, {1, nqkv}),
                  sumsOf(2 * l), Arg::real(eps)},
                 qkvBytes + 2.0 * H));
    } else {
      TRY(launch(gemvRms.pick(H, nqkv), {Arg::in(a.res, {1, H}), Arg::in(L.qkv.w, {nqkv, H}),
                                         Arg::out(a.qkv, {1, nqkv}), sumsOf(2 * l),
                                         Arg::real(eps)},
                 qkvBytes));
    }
    // Slot 0's rows: the single-sequence step's.
    auto kin = Arg::in(kcache, {cacheRows, c.kvHeads, HD}, {}, cacheOffset(l));
    auto vin = Arg::in(vcache, {cacheRows, c.kvHeads, HD}, {}, cacheOffset(l));
    auto kc = Arg::inout(kcache, {cacheRows, c.kvHeads, HD}, {}, cacheOffset(l));
    auto vc = Arg::inout(vcache, {cacheRows, c.kvHeads, HD}, {}, cacheOffset(l));
    const double attnBytes = 2.0 * (2 * (len - 1) * kvw + nqkv);
    const double partBytes = 4.0 * c.heads * splits * (HD + 1);
    if (A.grouped) {
      TRY(launch(A.attn, {Arg::in(a.qkv, {1, nqkv}), Arg::in(L.qNorm, {HD}),
                            Arg::in(L.kNorm, {HD}), Arg::in(invFreq, {HD / 2}), kin, vin,
                            Arg::in(pos, {1}), Arg::out(a.po, {c.heads, splits, HD}),
                            Arg::out(a.plse, {c.heads, splits}), Arg::real(scale),
                            Arg::real(eps)},
                 attnBytes + partBytes));
      TRY(launch(A.merge, {Arg::in(a.po, {c.heads, splits, HD}),
                            Arg::in(a.plse, {c.heads, splits}), Arg::out(a.attn, {1, nq}),
                            Arg::in(a.qkv, {1, nqkv}), Arg::in(L.kNorm, {HD}),
                            Arg::in(invFreq, {HD / 2}), Arg::in(pos, {1}), kc, vc,
                            Arg::real(eps)},
                 partBytes + 2.0 * nq + 2.0 * 4 * kvw));
      TRY(clearPartial());
      TRY(gemvAdd(a.attn, nq, L.o, 2 * l + 1));
    } else {
      // The attention merges its shares itself (the last share of each
      // head), and the output projection writes the token's K/V.
      TRY(clearPartial());
      TRY(launch(A.attn, {Arg::in(a.qkv, {1, nqkv}), Arg::in(L.qNorm, {HD}),
                          Arg::in(L.kNorm, {HD}), Arg::in(invFreq, {HD / 2}), kin, vin,
                          Arg::in(pos, {1}), Arg::inout(a.po, {c.heads, HD, splits}),
                          Arg::inout(a.plse, {c.heads, splits}), Arg::out(a.attn, {1, nq}),
                          Arg::ticket(tickets, {c.heads}), Arg::real(scale),
                          Arg::real(eps)},
                 attnBytes + 2 * partBytes + 2.0 * nq));
      const double oBytes = weightBytes(L.o, H, nq) + 2.0 * (nq + 2 * H) + 2.0 * 4 * kvw;
      auto kvWrite = {Arg::in(a.qkv, {1, nqkv}), Arg::in(L.kNorm, {HD}),
                      Arg::in(invFreq, {HD / 2}), Arg::in(pos, {1}), kc, vc, Arg::real(eps)};
      std::vector<Arg> args = {Arg::in(a.attn, {1, nq}), Arg::in(L.o.w, {H, nq})};
      if (L.o.fp8)
        args.push_back(Arg::in(L.o.scale, {H / 128, nq / 128}));
      args.push_back(partialRow());
      args.push_back(partialSums(2 * l + 1));
      args.insert(args.end(), kvWrite.begin(), kvWrite.end());
      TRY(launch(L.o.fp8 ? gemvResidualKvFp8.pick(nq, H) : gemvResidualKv.pick(nq, H),
                 args.data(), args.size(), oBytes));
    }
    TRY(completeRow(2 * l + 1));
    const double gateUpBytes = weightBytes(L.gateUp, 2 * I, H) + 2.0 * (H + I);
    if (L.gateUp.fp8) {
      TRY(launch(gemvSwigluFp8.pick(H, I),
                 {Arg::in(a.res, {1, 1, H}), Arg::in(L.postNorm, {1, 1, H}),
                  Arg::in(L.gateUp.w, {2, I, H}), Arg::in(L.gateUp.scale, {2, I / 128, H / 128}),
                  Arg::out(a.act, {1, I}), sumsOf(2 * l + 1), Arg::real(eps)},
                 gateUpBytes + 2.0 * H));
    } else {
      TRY(launch(gemvSwiglu.pick(H, I),
                 {Arg::in(a.res, {1, 1, H}), Arg::in(L.gateUp.w, {2, I, H}),
                  Arg::out(a.act, {1, I}), sumsOf(2 * l + 1), Arg::real(eps)},
                 gateUpBytes));
    }
    TRY(clearPartial());
    TRY(gemvAdd(a.act, I, L.down, 2 * l + 2));
    TRY(completeRow(2 * l + 2));
  }
  TRY(norm(finalNorm));
  // The LM head: this rank's vocabulary rows, gathered whole.
  TRY(linear(1, a.h, H, lmHead, vocabRows, a.logits, 0, place.rank * vocabRows));
  if (place.ranks > 1)
    TRY(gatherLogits(a));
#undef TRY
  return Status::ok();
}

// The prompt: GEMMs over all tokens, the norms (the input norms' weights
// folded into the QKV projections) and element-wise steps as their own
// kernels, and the LM head on the last position only.
Status EngineShard::prefillLayers(Acts &a, int64_t T) {
  const ModelConfig &c = cfg;
  const int64_t H = c.hidden, I = c.intermediate, HD = c.headDim;
  const int64_t nq = c.heads * HD;
  const float eps = static_cast<float>(c.rmsEps);
  const float scale = 1.0f / std::sqrt(static_cast<float>(HD));
  Status st = Status::ok();
#define TRY(x)                                                                 \
  if (!(st = (x)))                                                             \
    return st;
  TRY(launch(kEmbed, {Arg::in(a.ids, {T}), Arg::in(embed, {c.vocabSize, H}),
                      Arg::out(a.res, {T, H})}));
  TRY(launch(kRms, {Arg::in(a.res, {T, H}), Arg::in(unitNorm, {H}),
                    Arg::out(a.h, {T, H}), Arg::real(eps)}));
  // The angles' cos and sin, one row per token, once for every layer
  // below: each layer's query and key kernels read their rows instead of
  // each head computing the same angles again.
  TRY(launch(kRopeTable, {Arg::in(invFreq, {HD / 2}), Arg::in(pos, {1}),
                          Arg::out(a.ropeCos, {T, HD}), Arg::out(a.ropeSin, {T, HD})}));
  for (int64_t l = 0; l < c.layers; ++l) {
    const Layer &L = layers[l];
    const Buffer *w = nullptr;
    TRY(promptWeight(L.qkv, nqkv, H, &L.inNorm, w));
    TRY(linear(T, a.h, H, *w, nqkv, a.qkv));
    auto cosRows = Arg::in(a.ropeCos, {T, HD}), sinRows = Arg::in(a.ropeSin, {T, HD});
    TRY(launch(kQRopeTable, {Arg::in(a.qkv, {T, nqkv}), Arg::in(L.qNorm, {HD}), cosRows,
                             sinRows, Arg::out(a.q, {T, nq}), Arg::real(eps)}));
    // The caches' rows of this prompt, from its position (known on the
    // host for a prompt): the kernel writes whole 16-row tiles of them.
    const int64_t rows = cacheOffset(l) + position * c.kvHeads * HD;
    TRY(launch(kKvRopeTable,
               {Arg::in(a.qkv, {T, nqkv}), Arg::in(L.kNorm, {HD}), cosRows, sinRows,
                Arg::out(kcache, {T, c.kvHeads, HD}, {}, rows),
                Arg::out(vcache, {T, c.kvHeads, HD}, {}, rows), Arg::integer(c.heads),
                Arg::real(eps)}));
    auto kin = Arg::in(kcache, {cacheRows, c.kvHeads, HD}, {}, cacheOffset(l));
    auto vin = Arg::in(vcache, {cacheRows, c.kvHeads, HD}, {}, cacheOffset(l));
    TRY(launch(kPreAttn, {Arg::in(a.q, {T, nq}), kin, vin, Arg::in(pos, {1}),
                          Arg::out(a.attn, {T, nq}), Arg::real(scale)}));
    TRY(promptWeight(L.o, H, nq, nullptr, w));
    TRY(linear(T, a.attn, nq, *w, H, a.ao));
    if (place.ranks > 1)
      TRY(allReduce(a.ao, T * H));
    // The post-attention norm's weight is in the gate/up projection.
    TRY(launch(kAddRms, {Arg::in(a.ao, {T, H}), Arg::inout(a.res, {T, H}),
                         Arg::in(unitNorm, {H}), Arg::out(a.h, {T, H}),
                         Arg::real(eps)}));
    // The gate/up GEMM with SwiGLU in its epilogue: a program's 128
    // activations from 128 gate and the 128 up rows that pair with them,
    // so the [T, 2I] projection is never written nor read back (every
    // supported intermediate size, per rank too, is whole 128-row tiles).
    TRY(promptWeight(L.gateUp, 2 * I, H, &L.postNorm, w));
    TRY(launch(kGemmSwiglu, {Arg::in(a.h, {T, H}), Arg::in(*w, {2 * I, H}),
                             Arg::out(a.act, {T, I})}));
    TRY(promptWeight(L.down, H, I, nullptr, w));
    TRY(linear(T, a.act, I, *w, H, a.mo));
    if (place.ranks > 1)
      TRY(allReduce(a.mo, T * H));
    // The next layer's input norm weight is in its QKV projection.
    const Buffer &nextNorm = l + 1 < c.layers ? unitNorm : finalNorm;
    TRY(launch(kAddRms, {Arg::in(a.mo, {T, H}), Arg::inout(a.res, {T, H}),
                         Arg::in(nextNorm, {H}), Arg::out(a.h, {T, H}),
                         Arg::real(eps)}));
  }
  TRY(linear(1, a.h, H, lmHead, vocabRows, a.logits, (T - 1) * H, place.rank * vocabRows));
  if (place.ranks > 1)
    TRY(gatherLogits(a));
#undef TRY
  return Status::ok();
}

Status EngineShard::forward(Acts &a, int64_t T, const Buffer &ids) {
  const ModelConfig &c = cfg;
  last = &a;
  Status st = T == 1 ? decodeLayers(a, ids) : prefillLayers(a, T);
  if (!st)
    return st;
  const double logitBytes = 2.0 * c.vocabSize;
  if (sampling.enabled) {
    st = launch(kSample, {Arg::in(a.logits, {1, c.vocabSize}), Arg::in(pos, {1}),
                          Arg::out(token, {1}), Arg::real(sampling.temperature),
                          Arg::integer(sampling.topK), Arg::real(sampling.topP),
                          // The seed's low 32 bits, as the kernel's i32.
                          Arg::integer(static_cast<int32_t>(
                              static_cast<uint32_t>(sampling.seed)))},
                logitBytes);
  } else {
    int64_t nparts = a.vals.count();
    st = launch(kArgmaxP, {Arg::in(a.logits, {1, c.vocabSize}),
                           Arg::out(a.vals, {nparts}), Arg::out(a.idxs, {nparts})},
                logitBytes);
    if (st)
      st = launch(kArgmaxF, {Arg::in(a.vals, {nparts}), Arg::in(a.idxs, {nparts}),
                             Arg::out(token, {1})},
                  8.0 * nparts);
  }
  if (!st)
    return st;
  return launch(kAdvance,
                {Arg::inout(pos, {1}), Arg::integer(T), Arg::out(normSums, {normSumsCount()})},
                8 + 4.0 * normSumsCount());
}

} // namespace qwen3
