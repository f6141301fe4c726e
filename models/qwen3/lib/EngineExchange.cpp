//===- EngineExchange.cpp - what tensor-parallel ranks exchange ----------===//
//
// Tensor parallelism (docs/parallel.md). The row-parallel projections (o,
// down) leave each rank a partial sum of the rows they write; an
// all-reduce completes them. The LM head's rows are split by vocabulary
// and the logits gathered whole, so every rank picks the same token.
//
// The decode step all-reduces its residual row one of two ways:
//  - Through NCCL: rank 0 adds its partial into the stream, the others
//    into a cleared row, so the sum over the ranks is the stream plus
//    every partial; the norm sum the single-device step adds up in the
//    projection's launch is then taken from the completed row (row_sumsq).
//  - Through peer buffers (place.exchange): the projection adds its
//    partial into this rank's part of the step's next exchange buffer
//    (cleared by the all-reduce before), and after the flag barrier
//    residual_all_reduce adds every rank's part onto the stream and writes
//    norm i's sum; the projection's own sum goes to the final norm's slot,
//    which nothing reads.
//
//===----------------------------------------------------------------------===//

#include "EngineShard.h"

namespace qwen3 {

Status PeerExchange::create(const std::vector<std::unique_ptr<Communicator>> &comms,
                            DType dtype, int64_t hidden, PeerExchange &out) {
  std::vector<Communicator *> group;
  for (const auto &c : comms)
    group.push_back(c.get());
  Status st = Status::ok();
  for (PeerBuffers &rows : out.rows)
    if (st)
      st = Communicator::createPeerBuffers(group, dtype, hidden, rows);
  if (st)
    st = Communicator::createPeerBuffers(group, DType::I32, 2 * comms[0]->flagSlotWidth(),
                                         out.flags);
  return st;
}

Status EngineShard::allReduce(const Buffer &b, int64_t count) {
  return timed("all_reduce", 2.0 * 2 * count,
               [&] { return place.comm->allReduceSum(stream, b, 0, count); });
}

Status EngineShard::gatherLogits(Acts &a) {
  return timed("all_gather_logits", 2.0 * cfg.vocabSize,
               [&] { return place.comm->allGather(stream, a.logits, 0, vocabRows); });
}

Arg EngineShard::partialResidualRow(Acts &a, int64_t exchange) {
  const int64_t H = cfg.hidden;
  if (place.ranks == 1 || !place.exchange)
    return Arg::inout(a.res, {1, H});
  const PeerBuffers &rows = place.exchange->rows[exchange % 2];
  return Arg::inout(rows.views[place.rank], {1, H}, {}, place.rank * rows.stride);
}

int64_t EngineShard::partialNormSlot(int64_t i) const {
  return place.ranks > 1 && place.exchange ? 2 * cfg.layers : i;
}

Status EngineShard::clearPartialRow(Acts &a) {
  if (place.ranks == 1 || place.exchange || place.rank == 0)
    return Status::ok();
  return timed("fill", 2.0 * cfg.hidden, [&] { return stream.fill(a.res, 0); });
}

Status EngineShard::completeResidualRow(Acts &a, int64_t i, int64_t exchange) {
  const int64_t H = cfg.hidden;
  if (!place.exchange) {
    if (Status s = allReduce(a.res, H); !s)
      return s;
    return launch(kRowSumsq, {Arg::in(a.res, {1, H}), Arg::out(normSums, {1}, {}, normSlot(i))},
                  2.0 * H + 4);
  }
  const int64_t p = exchange % 2, r = place.rank, n = place.ranks;
  const PeerBuffers &rows = place.exchange->rows[p], &next = place.exchange->rows[1 - p],
                    &flags = place.exchange->flags;
  // Two graph nodes: as one batch of memory operations (signal and wait)
  // the barrier measured slower (bench/results/2026-11-28-one-shot-all-reduce.md).
  if (Status s = timed("peer_signal", 4.0 * (n - 1), [&] {
        return place.comm->signalPeers(stream, flags.views[r], flags.stride, p);
      });
      !s)
    return s;
  if (Status s = timed("peer_wait", 4.0 * (n - 1), [&] {
        return place.comm->waitPeers(stream, flags.views[r], flags.stride, p);
      });
      !s)
    return s;
  return launch(kResidualAllReduce,
                {Arg::in(rows.views[r], {n, H}, {rows.stride, 1}), Arg::inout(a.res, {1, H}),
                 Arg::out(normSums, {1}, {}, normSlot(i)),
                 Arg::out(next.views[r], {1, H}, {}, r * next.stride),
                 Arg::out(flags.views[r], {n}, {},
                          r * flags.stride + p * place.comm->flagSlotWidth())},
                2.0 * (n + 3) * H + 4.0 * (n + 1));
}

} // namespace qwen3
