//===- EngineBatch.cpp - a shard's batched decode step --------------------===//
//
// Continuous batching (docs/serving.md): one decode token of each of B
// sequences at once, each row's keys and values in its pages of the paged
// cache. The projections are the prompt's GEMMs over the B rows, so each
// weight is read once per step for the whole batch, and a row's products
// are the same whichever rows run beside it (the step is batch-invariant).
// Each row's new key and value are written into its last page before the
// attention, which reads the row's pages through the page table. A step of
// B rows is captured once per bucket (rowBucket) and replayed; the fed
// tokens, their positions and the page tables are written before each
// replay (the pages written through a checked table, whose distinct
// entries the write kernel's contract needs). Also the gather of a
// sequence's pages into the staging rows and the scatter back.
//
//===----------------------------------------------------------------------===//

#include "EngineShard.h"

#include <cmath>

namespace qwen3 {

Status EngineShard::allocBatch() {
  const ModelConfig &c = cfg;
  batch = Batch();
  Acts &a = batch.acts;
  // Decode rows, then a prompt chunk's (maxChunk); the LM head's rows: the
  // decode rows and a chunk's last.
  const int64_t S = maxRows, R = maxRows + maxChunk, P = gemmRows(R), nq = c.heads * c.headDim;
  const int64_t L = maxChunk > 0 ? gemmRows(maxRows + 1) : gemmRows(maxRows);
  const int64_t nparts = (c.vocabSize + argmaxChunk - 1) / argmaxChunk;
  a.cap = R;
  Status st = Status::ok();
  auto alloc = [&](DType t, int64_t n, Buffer &b) {
    if (st)
      st = device->allocate(t, n, stream, b);
  };
  alloc(DType::I32, R, batch.ids);
  alloc(DType::I32, R, batch.pos);
  alloc(DType::I32, S + 1, batch.next);
  alloc(DType::I32, S * pagesPerSequence(), batch.pageTable);
  alloc(DType::I32, S, batch.writePages);
  alloc(dt, R * c.hidden, a.res);
  // The GEMMs' operands, for P >= R rows (gemmRows).
  alloc(dt, P * c.hidden, a.h);
  alloc(dt, P * nqkv, a.qkv);
  alloc(dt, R * nq, a.q);
  alloc(dt, P * nq, a.attn);
  alloc(dt, P * c.hidden, a.ao);
  alloc(dt, P * c.intermediate, a.act);
  alloc(dt, P * c.hidden, a.mo);
  alloc(dt, R * c.headDim, a.ropeCos);
  alloc(dt, R * c.headDim, a.ropeSin);
  alloc(dt, L * c.vocabSize, a.logits);
  alloc(DType::F32, S * nq * kBatchSplits, a.po);
  alloc(DType::F32, S * c.heads * kBatchSplits, a.plse);
  alloc(DType::F32, (S + 1) * nparts, a.vals);
  alloc(DType::I32, (S + 1) * nparts, a.idxs);
  alloc(DType::I32, S * c.heads, batch.tickets);
  // gemm_few's rows: one tile of tokens for the most rows a step runs it
  // over; split-K partial sums for the most splits its projections take.
  const int64_t F = kernels::fewTokens(std::min(R, kernels::kMostFewTokens));
  const int64_t splits =
      std::max(projectionSplits(c.hidden, nq), projectionSplits(c.hidden, c.intermediate));
  if (splits > 1)
    alloc(DType::F32, splits * F * c.hidden, batch.partials);
  alloc(dt, F * 2 * c.intermediate, batch.gateUp);
  if (place.ranks > 1)
    alloc(dt, place.ranks * L * vocabRows, batch.gathered);
  alloc(DType::I32, (S + 1) * 4, batch.samplePos);
  alloc(DType::I32, (S + 1) * 4, batch.sampleNext);
  if (st)
    st = stream.fill(batch.tickets, 0);
  if (st)
    st = stream.fill(batch.pageTable, 0);
  // Distinct pages from the start: the first capture checks them.
  if (st && pages() >= S) {
    std::vector<int32_t> distinct(S);
    for (int64_t i = 0; i < S; ++i)
      distinct[i] = static_cast<int32_t>(i);
    if ((st = stream.copyToDevice(batch.writePages, distinct.data(), S * 4)))
      st = stream.makeTable(batch.writePages);
  }
  // The GEMMs' rows past a step's are read before any step writes them.
  for (Buffer *b : {&a.h, &a.attn})
    if (st)
      st = stream.fill(*b, 0);
  return st;
}

Arg EngineShard::pageView(const Buffer &cache, int64_t layer, bool writes) const {
  const int64_t PG = kernels::kPageSize;
  if (writes)
    return Arg::inout(cache, {pages(), PG, cfg.kvHeads, cfg.headDim}, {}, cacheOffset(layer) + cacheRows * cfg.kvHeads * cfg.headDim);
  return Arg::in(cache, {pages(), PG, cfg.kvHeads, cfg.headDim}, {}, cacheOffset(layer) + cacheRows * cfg.kvHeads * cfg.headDim);
}

Status EngineShard::gatherRows(const std::vector<int32_t> &list) {
  const int64_t n = static_cast<int64_t>(list.size()), PG = kernels::kPageSize;
  const int64_t HD = cfg.headDim, kvh = cfg.kvHeads;
  if (n == 0)
    return Status::ok();
  if (Status st = stream.copyToDevice(gatherPages, list.data(), n * 4); !st)
    return st;
  for (int64_t l = 0; l < cfg.layers; ++l) {
    const Arg args[] = {Arg::in(gatherPages, {n}), pageView(kcache, l, false),
                        pageView(vcache, l, false),
                        Arg::out(kcache, {n * PG, kvh, HD}, {}, cacheOffset(l)),
                        Arg::out(vcache, {n * PG, kvh, HD}, {}, cacheOffset(l))};
    if (Status st = launch(kPagesToRows, args, 5, 4.0 * n * PG * kvh * HD * 2);
        !st)
      return st;
  }
  return Status::ok();
}

Status EngineShard::scatterRows(int64_t first, int64_t n, const std::vector<int32_t> &table) {
  const int64_t PG = kernels::kPageSize, HD = cfg.headDim, kvh = cfg.kvHeads;
  if (n == 0)
    return Status::ok();
  if (Status st = stream.writeTable(scatterPages, table.data(), table.size() * 4); !st)
    return st;
  const int64_t row = first * PG * kvh * HD;
  for (int64_t l = 0; l < cfg.layers; ++l) {
    const Arg args[] = {Arg::in(scatterPages, {n}),
                        Arg::in(kcache, {n * PG, kvh, HD}, {}, cacheOffset(l) + row),
                        Arg::in(vcache, {n * PG, kvh, HD}, {}, cacheOffset(l) + row),
                        pageView(kcache, l, true), pageView(vcache, l, true)};
    if (Status st = launch(kRowsToPages, args, 5, 4.0 * n * PG * kvh * HD * 2);
        !st)
      return st;
  }
  return Status::ok();
}

Status EngineShard::batchLayers(int64_t B, const PromptChunk *chunk) {
  const ModelConfig &c = cfg;
  const int64_t H = c.hidden, I = c.intermediate, HD = c.headDim, V = c.vocabSize;
  const int64_t nq = c.heads * HD, kvw = c.kvHeads * HD;
  const float eps = static_cast<float>(c.rmsEps);
  const float scale = 1.0f / std::sqrt(static_cast<float>(HD));
  const bool split = place.ranks > 1;
  Acts &a = batch.acts;
  // A prompt chunk's C rows follow the B decode rows through every
  // row-wise launch and GEMM; only its keys, values and attention go
  // through the staging rows, as a prompt's do. The LM head runs over the
  // decode rows and, for the prompt's last chunk, that chunk's last row
  // (copied to row B).
  const int64_t C = chunk ? static_cast<int64_t>(chunk->ids.size()) : 0, R = B + C;
  const int64_t heads = B + (chunk && chunk->last ? 1 : 0);
  const int64_t splits = batchSplits(B);
  const double esize = 2;
  // Up to 256 rows (decode rows, and a prompt's chunk beside them),
  // gemm_few over one tile of tokens (kernels::fewTokens), W's rows as the
  // dot's A: the prompt's 128 x 256 (or 128) tiles of tokens leave most
  // SMs idle at a few hundred rows (Qwen3-8B's down projection: 32
  // programs at 256). The tile's rows past the step's are computed and not
  // read.
  auto gemm = [&](const char *what, int64_t rows, const Buffer &x, int64_t k, const Buffer &w,
                  int64_t n, const Buffer &y, int64_t yOffset = 0) {
    if (const int64_t T = kernels::fewTokens(rows)) {
      const Arg args[] = {Arg::in(x, {T, k}), Arg::in(w, {n, k}),
                          Arg::out(y, {T, n}, {}, yOffset)};
      return launch(kGemmFew.at(T), args, 3, esize * (n * k + rows * (k + n)), what);
    }
    const int64_t P = gemmRows(rows);
    const Arg args[] = {Arg::in(x, {P, k}), Arg::in(w, {n, k}), Arg::out(y, {P, n}, {}, yOffset)};
    return launch(pickGemm(P, n), args, 3, esize * (n * k + rows * (k + n)), what);
  };
  // A projection to the hidden size (o, down), added to the residual and
  // normed for the next: in gemm_few's tiles on one device, split over K
  // (projectionSplits) with the partial sums added up by the norm's launch.
  auto projectAndAddNorm = [&](const char *what, int64_t rows, const Buffer &x, int64_t k,
                               const Buffer &w, const Buffer &y, const Buffer &norm) -> Status {
    const int64_t T = kernels::fewTokens(rows);
    const int64_t splits = T > 0 ? projectionSplits(H, k) : 1;
    if (splits > 1) {
      const Arg args[] = {Arg::in(x, {T, k}), Arg::in(w, {H, k}),
                          Arg::out(batch.partials, {splits * T, H})};
      if (Status st = launch(kGemmFewSplit.at(T), args, 3,
                             esize * (H * k + rows * k) + 4.0 * splits * rows * H, what);
          !st)
        return st;
      return launch(kAddRmsPartials,
                    {Arg::in(batch.partials, {splits, T, H}), Arg::inout(a.res, {rows, H}),
                     Arg::in(norm, {H}), Arg::out(a.h, {rows, H}), Arg::real(eps)});
    }
    if (Status st = gemm(what, rows, x, k, w, H, y); !st)
      return st;
    if (split)
      if (Status st = allReduce(y, rows * H); !st)
        return st;
    return launch(kAddRms, {Arg::in(y, {rows, H}), Arg::inout(a.res, {rows, H}),
                            Arg::in(norm, {H}), Arg::out(a.h, {rows, H}), Arg::real(eps)});
  };
  Status st = Status::ok();
#define TRY(x)                                                                 \
  if (!(st = (x)))                                                             \
    return st;
  TRY(launch(kEmbed, {Arg::in(batch.ids, {R}), Arg::in(embed, {V, H}), Arg::out(a.res, {R, H})}));
  TRY(launch(kRms, {Arg::in(a.res, {R, H}), Arg::in(unitNorm, {H}), Arg::out(a.h, {R, H}),
                    Arg::real(eps)}));
  TRY(launch(kRopeTablePositions, {Arg::in(invFreq, {HD / 2}), Arg::in(batch.pos, {R}),
                                   Arg::out(a.ropeCos, {R, HD}), Arg::out(a.ropeSin, {R, HD})}));
  const int64_t M = pagesPerSequence();
  for (int64_t l = 0; l < c.layers; ++l) {
    const Layer &L = layers[l];
    const Buffer *w = nullptr;
    TRY(promptWeight(L.qkv, nqkv, H, &L.inNorm, w));
    TRY(gemm("qkv", R, a.h, H, *w, nqkv, a.qkv));
    // Every row's query heads; the decode rows' keys and values into their
    // pages (the chunk's go to the staging rows below).
    TRY(launch(kQkvWritePages,
               {Arg::in(a.qkv, {R, nqkv}), Arg::in(L.qNorm, {HD}), Arg::in(L.kNorm, {HD}),
                Arg::in(a.ropeCos, {R, HD}), Arg::in(a.ropeSin, {R, HD}),
                Arg::in(batch.pos, {B}), Arg::in(batch.writePages, {B}), Arg::out(a.q, {R, nq}),
                pageView(kcache, l, true), pageView(vcache, l, true), Arg::real(eps)}));
    TRY(launch(kBatchAttn.at(splits),
               {Arg::in(a.q, {B * c.heads, HD}), pageView(kcache, l, false),
                pageView(vcache, l, false), Arg::in(batch.pageTable, {B, M}),
                Arg::in(batch.pos, {B}),
                Arg::inout(a.po, {B * c.heads, splits, HD}),
                Arg::inout(a.plse, {B * c.heads, splits}),
                Arg::out(a.attn, {B * c.heads, HD}), Arg::ticket(batch.tickets, {B * c.kvHeads}),
                Arg::real(scale)},
               batch.attentionBytes));
    if (C > 0) {
      // The chunk's keys and values into the staging rows from its first
      // position, then its attention over the prompt so far, as the
      // prompt's own launches (prefillLayers) run them.
      const int64_t rows = cacheOffset(l) + chunk->from * kvw;
      TRY(launch(kKvRopeTable,
                 {Arg::in(a.qkv, {C, nqkv}, {}, B * nqkv), Arg::in(L.kNorm, {HD}),
                  Arg::in(a.ropeCos, {C, HD}, {}, B * HD), Arg::in(a.ropeSin, {C, HD}, {}, B * HD),
                  Arg::out(kcache, {C, c.kvHeads, HD}, {}, rows),
                  Arg::out(vcache, {C, c.kvHeads, HD}, {}, rows), Arg::integer(c.heads),
                  Arg::real(eps)}));
      TRY(launch(kPreAttn, {Arg::in(a.q, {C, nq}, {}, B * nq),
                            Arg::in(kcache, {cacheRows, c.kvHeads, HD}, {}, cacheOffset(l)),
                            Arg::in(vcache, {cacheRows, c.kvHeads, HD}, {}, cacheOffset(l)),
                            Arg::in(pos, {1}), Arg::out(a.attn, {C, nq}, {}, B * nq),
                            Arg::real(scale)}));
    }
    TRY(promptWeight(L.o, H, nq, nullptr, w));
    TRY(projectAndAddNorm("o", R, a.attn, nq, *w, a.ao, unitNorm));
    TRY(promptWeight(L.gateUp, 2 * I, H, &L.postNorm, w));
    if (kernels::fewTokens(R)) {
      // gemm_few over the fused weight, then SwiGLU on its own: faster
      // than gemm_swiglu's tiles of rows, with the SwiGLU in their
      // epilogue (bench/results/2026-11-29-split-k.md).
      TRY(gemm("gate_up", R, a.h, H, *w, 2 * I, batch.gateUp));
      TRY(launch(kSwigluRows, {Arg::in(batch.gateUp, {R, I}, {2 * I, 1}),
                               Arg::in(batch.gateUp, {R, I}, {2 * I, 1}, I),
                               Arg::out(a.act, {R, I})}));
    } else {
      TRY(launch(kGemmSwiglu,
                 {Arg::in(a.h, {gemmRows(R), H}), Arg::in(*w, {2 * I, H}),
                  Arg::out(a.act, {gemmRows(R), I})},
                 esize * (2 * I * H + R * (H + I))));
    }
    TRY(promptWeight(L.down, H, I, nullptr, w));
    TRY(projectAndAddNorm("down", R, a.act, I, *w, a.mo,
                          l + 1 < c.layers ? unitNorm : finalNorm));
  }
  if (heads > B && C > 1)
    TRY(stream.copy(a.h, a.h, H * esize, B * H * esize, (R - 1) * H * esize));
  if (!split) {
    TRY(gemm("lm_head", heads, a.h, H, lmHead, V, a.logits));
  } else {
    // This rank's vocabulary slice of every row in one GEMM, into its part
    // of `gathered`; one all-gather; then each row's slices copied into
    // its logits row (a row's slices are contiguous only within the row).
    const int64_t part = gemmRows(heads) * vocabRows;
    TRY(gemm("lm_head", heads, a.h, H, lmHead, vocabRows, batch.gathered, place.rank * part));
    TRY(timed("all_gather_logits", 2.0 * place.ranks * part, [&] {
      return place.comm->allGather(stream, batch.gathered, 0, part);
    }));
    for (int64_t b = 0; b < heads; ++b)
      for (int64_t r = 0; r < place.ranks; ++r)
        TRY(stream.copy(a.logits, batch.gathered, vocabRows * 2, (b * V + r * vocabRows) * 2,
                        (r * part + b * vocabRows) * 2));
  }
  const int64_t nparts = (V + argmaxChunk - 1) / argmaxChunk;
  TRY(launch(kArgmaxRowsP, {Arg::in(a.logits, {heads, V}), Arg::out(a.vals, {heads, nparts}),
                            Arg::out(a.idxs, {heads, nparts})}));
  TRY(launch(kArgmaxRowsF, {Arg::in(a.vals, {heads, nparts}), Arg::in(a.idxs, {heads, nparts}),
                            Arg::out(batch.next, {heads})}));
#undef TRY
  return Status::ok();
}

Status EngineShard::decodeBatch(const std::vector<int32_t> &ids,
                                const std::vector<int32_t> &positions,
                                const std::vector<int32_t> &pageTable,
                                const std::vector<int32_t> &writePages,
                                const std::vector<const Sampling *> &sampling,
                                std::vector<int32_t> &next, const PromptChunk *chunk) {
  const int64_t rows = static_cast<int64_t>(ids.size());
  const int64_t B = rowBucket(rows);
  const int64_t C = chunk ? static_cast<int64_t>(chunk->ids.size()) : 0;
  if (pages() < maxRows)
    return Status::error("a batched step needs the paged cache (--max-batch of at least 2)");
  if (C > maxChunk || (chunk && (C == 0 || chunk->from < 0 || chunk->from + C > cacheRows)))
    return Status::error("a batched step's prompt chunk of " + std::to_string(C) +
                         " tokens from position " + std::to_string(chunk ? chunk->from : 0) +
                         " does not fit (at most " + std::to_string(maxChunk) +
                         " tokens, within " + std::to_string(cacheRows) + " positions)");
  // The bucket's rows past the step's: token 0 at no position (nothing
  // written, nothing picked that anyone reads). A chunk's rows follow.
  std::vector<int32_t> id(B + C, 0), at(B + C, -1);
  std::copy(ids.begin(), ids.end(), id.begin());
  std::copy(positions.begin(), positions.end(), at.begin());
  // What batch_decode_attention must read, for the profile: each row's
  // keys and values up to its position.
  batch.attentionBytes = 0;
  for (int32_t p : positions)
    if (p >= 0)
      batch.attentionBytes += (p + 1.0) * 2 * cfg.kvHeads * cfg.headDim * 2;
  for (int64_t i = 0; i < C; ++i) {
    id[B + i] = chunk->ids[i];
    at[B + i] = static_cast<int32_t>(chunk->from + i);
  }
  Status st = Status::ok();
  if (!(st = stream.copyToDevice(batch.ids, id.data(), (B + C) * 4)) ||
      !(st = stream.copyToDevice(batch.pos, at.data(), (B + C) * 4)) ||
      (!pageTable.empty() &&
       !(st = stream.copyToDevice(batch.pageTable, pageTable.data(), pageTable.size() * 4))) ||
      !(st = stream.writeTable(batch.writePages, writePages.data(), writePages.size() * 4)))
    return st;
  if (chunk) {
    // The chunk's attention reads its first position from `pos`, as a
    // prompt's does; the single-sequence step uploads its own again.
    const int32_t from = static_cast<int32_t>(chunk->from);
    position = chunk->from;
    singleStale = true;
    if (!(st = stream.copyToDevice(pos, &from, 4)))
      return st;
    if (!(st = batchLayers(B, chunk)))
      return st;
    position = chunk->from + C;
  } else if (opts.useGraph && !profile) {
    // A profiled step runs its launches one by one (each timed alone);
    // a step with a chunk (its rows and positions vary) too.
    Graph &g = batch.graphs[B];
    if (!g.valid()) {
      if (!(st = stream.beginCapture()))
        return st;
      Status fs = batchLayers(B, nullptr);
      Status es = stream.endCapture(g);
      if (!fs)
        return fs;
      if (!es)
        return es;
    }
    st = g.replay(stream);
  } else {
    st = batchLayers(B, nullptr);
  }
  if (!st)
    return st;
  // Sampled rows draw after the greedy picks (each with its own settings,
  // so outside the graph). The last chunk's pick is logits row B, drawn at
  // the chunk's first position as a prompt's pick is.
  const int64_t V = cfg.vocabSize;
  const bool chunkPick = chunk && chunk->last;
  const int64_t picks = chunkPick ? B + 1 : rows;
  struct Draw {
    int64_t row;
    const Sampling *s;
    int32_t at;
  };
  std::vector<Draw> toDraw;
  for (int64_t b = 0; b < rows; ++b)
    toDraw.push_back({b, sampling[b], positions[b]});
  if (chunkPick)
    toDraw.push_back({B, chunk->sampling, static_cast<int32_t>(chunk->from)});
  std::vector<int64_t> drawn;
  for (const auto &[b, s, at] : toDraw) {
    if (!s || !s->enabled)
      continue;
    if (V % 8 != 0)
      return Status::error("sampling in a batched step needs a vocab_size that is a multiple "
                           "of 8 (each row's logits 16-byte aligned), got " +
                           std::to_string(V));
    if (!(st = stream.copyToDevice(batch.samplePos, &at, 4, b * 16)))
      return st;
    st = launch(kSample,
                {Arg::in(batch.acts.logits, {1, V}, {}, b * V),
                 Arg::in(batch.samplePos, {1}, {}, b * 4),
                 Arg::out(batch.sampleNext, {1}, {}, b * 4), Arg::real(s->temperature),
                 Arg::integer(s->topK), Arg::real(s->topP),
                 Arg::integer(static_cast<int32_t>(static_cast<uint32_t>(s->seed)))});
    if (!st)
      return st;
    drawn.push_back(b);
  }
  std::vector<int32_t> picked(picks, -1);
  std::vector<int32_t> draws(drawn.empty() ? 0 : picks * 4);
  if (!(st = stream.copyToHost(picked.data(), batch.next, picks * 4)) ||
      (!drawn.empty() && !(st = stream.copyToHost(draws.data(), batch.sampleNext, picks * 16))) ||
      !(st = stream.synchronize()))
    return st;
  for (int64_t b : drawn)
    picked[b] = draws[b * 4];
  next.assign(picked.begin(), picked.begin() + rows);
  if (chunkPick)
    next.push_back(picked[B]);
  return Status::ok();
}

Status EngineShard::batchLogits(int64_t row, std::vector<float> &logits) {
  return readLogits(batch.acts.logits, row * cfg.vocabSize, logits);
}

} // namespace qwen3
