//===- EngineSequences.cpp - sequences over the paged KV cache ------------===//
//
// The Engine API's sequences (docs/serving.md). Each slot's sequence keeps
// its K/V rows in pages of the paged cache, reference-counted, a whole page
// published under the chained hash of its tokens so a later prompt with
// the same prefix takes the page instead of computing it (PagePool).
// Prompts and the single-sequence step run in the staging rows, which hold
// one sequence at a time: its pages are gathered in first, and the rows
// computed there are scattered into its pages before another sequence
// takes the staging rows or a batched step reads them.
//
//===----------------------------------------------------------------------===//

#include "EngineImpl.h"

#include <algorithm>
#include <set>

namespace qwen3 {

static constexpr int64_t kPage = kernels::kPageSize;

static Status checkSlot(int64_t slot, int64_t slots) {
  if (slot < 0 || slot >= slots)
    return Status::error("slot " + std::to_string(slot) + " is not in [0, " +
                         std::to_string(slots) + ")");
  return Status::ok();
}

/// `list` followed by the smallest values in [0, hi) not in it, `size`
/// entries in all: a page table whose every entry is distinct, as the
/// kernels' contracts want of the pages written (hi >= size).
static std::vector<int32_t> distinctTable(const std::vector<int64_t> &list, int64_t size,
                                          int64_t hi) {
  std::vector<int32_t> t(list.begin(), list.end());
  std::set<int64_t> used(list.begin(), list.end());
  for (int64_t v = 0; static_cast<int64_t>(t.size()) < size && v < hi; ++v)
    if (!used.count(v))
      t.push_back(static_cast<int32_t>(v));
  return t;
}

void Engine::Impl::publishPages(Sequence &q) {
  if (!pool)
    return;
  for (const int64_t whole = q.inPages / kPage; q.published < whole; ++q.published)
    q.key = pool->publish(q.pages[q.published], q.key, q.tokens.data() + q.published * kPage);
}

void Engine::Impl::dropPages(Sequence &q) {
  if (pool)
    for (int64_t p : q.pages)
      pool->release(p);
  q = Sequence();
}

Status Engine::Impl::flushStaged() {
  if (!pool || staged < 0)
    return Status::ok();
  Sequence &q = seqs[staged];
  const int64_t stagedRows = static_cast<int64_t>(stagingTokens.size());
  if (q.inPages >= stagedRows)
    return Status::ok();
  const int64_t need = (stagedRows + kPage - 1) / kPage;
  while (static_cast<int64_t>(q.pages.size()) < need) {
    const int64_t p = pool->allocate();
    if (p < 0)
      return Status::error("the KV cache's " + std::to_string(pool->pages()) +
                           " pages are all in use");
    q.pages.push_back(p);
  }
  // From the page holding the first row missing; the pages before it
  // (published ones among them, which others may share) are not written.
  const int64_t first = q.inPages / kPage;
  const std::vector<int64_t> written(q.pages.begin() + first, q.pages.begin() + need);
  const std::vector<int32_t> table =
      distinctTable(written, shards[0]->pagesPerSequence(), pool->pages());
  if (Status st = onShards(
          [&](EngineShard &s, int) { return s.scatterRows(first, need - first, table); });
      !st)
    return st;
  q.inPages = stagedRows;
  publishPages(q);
  return Status::ok();
}

Status Engine::Impl::stage(int64_t slot) {
  Sequence &q = seqs[slot];
  const int64_t len = static_cast<int64_t>(q.tokens.size());
  if (staged == slot && static_cast<int64_t>(stagingTokens.size()) == len)
    return Status::ok();
  if (!pool)
    return Status::error("slot " + std::to_string(slot) + "'s rows are not in the cache");
  if (Status st = flushStaged(); !st)
    return st;
  std::vector<int32_t> list;
  for (int64_t i = 0; i < (len + kPage - 1) / kPage; ++i)
    list.push_back(static_cast<int32_t>(q.pages[i]));
  staged = -1;
  stagingTokens.clear();
  if (Status st = onShards([&](EngineShard &s, int) {
        s.restage(len);
        return s.gatherRows(list);
      });
      !st)
    return st;
  staged = slot;
  stagingTokens = q.tokens;
  return Status::ok();
}

Engine::Impl::Reuse Engine::Impl::findReuse(const std::vector<int32_t> &ids,
                                            size_t most) const {
  Reuse r;
  r.fromStaging = commonPrefix(stagingTokens, ids, most);
  if (pool && most >= static_cast<size_t>(kPage))
    r.matched = pool->match(ids, static_cast<int64_t>(most) / kPage);
  return r;
}

Status Engine::Impl::startPrompt(int64_t slot, const std::vector<int32_t> &ids, size_t most,
                                 int64_t &reused, std::vector<int32_t> &gather) {
  const Reuse found = findReuse(ids, most);
  const size_t fromStaging = found.fromStaging, fromPages = found.fromPages();
  const std::vector<int64_t> &matched = found.matched;
  // The staged sequence of another slot keeps its rows in its pages.
  if (staged != slot)
    if (Status st = flushStaged(); !st)
      return st;
  for (int64_t p : matched)
    pool->retain(p);
  Sequence &q = seqs[slot];
  dropPages(q);
  q.pages = matched;
  q.published = static_cast<int64_t>(matched.size());
  q.inPages = static_cast<int64_t>(fromPages);
  for (int64_t i = 0; i < q.published; ++i)
    q.key = PagePool::chain(q.key, ids.data() + i * kPage, kPage);
  reused = static_cast<int64_t>(std::max(fromStaging, fromPages));
  gather.clear();
  staged = slot;
  // Until the prompt completes, the rows it reuses.
  stagingTokens.resize(std::min(stagingTokens.size(), fromStaging));
  if (fromPages > fromStaging) {
    gather.assign(matched.begin(), matched.end());
    stagingTokens.assign(ids.begin(), ids.begin() + fromPages);
  }
  return Status::ok();
}

Status Engine::Impl::prefillInto(int64_t slot, const std::vector<int32_t> &ids,
                                 const Sampling *sampling, bool reuse, int32_t &next,
                                 int64_t &reused) {
  if (Status st = checkPrompt(static_cast<int64_t>(ids.size()), maxSeq); !st)
    return st;
  std::vector<int32_t> list;
  if (Status st = startPrompt(slot, ids, reuse ? reusable(ids) : 0, reused, list); !st)
    return st;
  Sequence &q = seqs[slot];
  std::vector<int32_t> picks(ranks(), -1);
  Status st = onShards([&](EngineShard &s, int r) {
    if (!list.empty())
      if (Status gs = s.gatherRows(list); !gs)
        return gs;
    if (!sampling)
      return s.prefill(ids, reused, picks[r]);
    // The prompt's pick with this request's sampling; the single-sequence
    // steps' (and their graphs') is put back.
    const Sampling kept = s.sampling;
    s.sampling = sampling->enabled ? *sampling : Sampling();
    Status ps = s.prefill(ids, reused, picks[r]);
    s.sampling = kept;
    return ps;
  });
  if (st)
    st = agreed(picks, next);
  if (!st) {
    dropPages(q);
    stagingTokens.clear();
    return st;
  }
  q.tokens = ids;
  stagingTokens = ids;
  tookPrefillLogits(static_cast<size_t>(slot));
  return Status::ok();
}

Status Engine::Impl::checkChunk(const Engine::PromptChunk &chunk, bool stepped) const {
  if (Status st = checkSlot(chunk.slot, static_cast<int64_t>(seqs.size())); !st)
    return st;
  if (stepped)
    return Status::error("slot " + std::to_string(chunk.slot) +
                         " is stepped and prefilled in one batch");
  if (shards[0]->maxChunk <= 0)
    return Status::error("a batched step runs no prompt chunk (EngineOptions::stepPromptTokens "
                         "is 0)");
  if (!chunk.prompt || chunk.stepTokens < 1)
    return Status::error("a prompt chunk needs a prompt and a step of at least one token");
  if (Status st = checkPrompt(static_cast<int64_t>(chunk.prompt->size()), maxSeq); !st)
    return st;
  return checkSampling(chunk.sampling);
}

Status Engine::Impl::startChunk(Engine::PromptChunk &chunk, int64_t decodeRows,
                                EngineShard::PromptChunk &part, std::vector<int32_t> &gather) {
  // The prompt so far in the staging rows: the chunks before this one
  // (gathered back if another sequence took the staging rows since), or
  // the prefix a new prompt reuses.
  const std::vector<int32_t> &prompt = *chunk.prompt;
  Sequence &q = seqs[chunk.slot];
  const bool goesOn = !q.tokens.empty() && q.tokens.size() < prompt.size() &&
                      std::equal(q.tokens.begin(), q.tokens.end(), prompt.begin());
  int64_t from = 0;
  chunk.reused = 0;
  if (goesOn) {
    if (Status st = stage(chunk.slot); !st)
      return st;
    from = static_cast<int64_t>(q.tokens.size());
  } else {
    if (Status st = startPrompt(chunk.slot, prompt, reusable(prompt), chunk.reused, gather); !st)
      return st;
    from = chunk.reused;
  }
  // The step's rows left after the decode rows' bucket.
  const int64_t size = static_cast<int64_t>(prompt.size());
  const int64_t tokens =
      std::min(std::max<int64_t>(1, chunk.stepTokens - decodeRows), shards[0]->maxChunk);
  chunk.end = std::min(size, from + tokens);
  part.ids.assign(prompt.begin() + from, prompt.begin() + chunk.end);
  part.from = from;
  part.last = chunk.end == size;
  part.sampling = &chunk.sampling;
  return Status::ok();
}

void Engine::Impl::endChunk(const Engine::PromptChunk &chunk, const EngineShard::PromptChunk &part,
                            bool ran, int64_t pickRow) {
  Sequence &q = seqs[chunk.slot];
  if (!ran) {
    // The staging rows' state is unknown.
    dropPages(q);
    stagingTokens.clear();
    staged = -1;
    return;
  }
  q.tokens.assign(chunk.prompt->begin(), chunk.prompt->begin() + chunk.end);
  stagingTokens = q.tokens;
  staged = chunk.slot;
  if (part.last) {
    q.logitsAt = LogitsAt::Batch;
    q.batchRow = pickRow;
  }
}

Status Engine::prefill(const std::vector<int32_t> &ids, int32_t &next) {
  int64_t reused = 0;
  return impl->prefillInto(0, ids, nullptr, false, next, reused);
}

Status Engine::prefillReusing(const std::vector<int32_t> &ids, int32_t &next,
                              int64_t &reused) {
  return impl->prefillInto(0, ids, nullptr, true, next, reused);
}

Status Engine::decode(int32_t token, int32_t &next) {
  Impl &m = *impl;
  if (Status st = m.stage(0); !st)
    return st;
  Impl::Sequence &q = m.seqs[0];
  if (m.shards[0]->position >= m.maxSeq)
    return Status::error("the sequence reached --max-seq-len " + std::to_string(m.maxSeq));
  q.logitsAt = Impl::LogitsAt::None;
  std::vector<int32_t> picks(m.ranks(), -1);
  // The step writes the token's K/V row after the staged ones (unknown if
  // it fails).
  if (Status st = m.onShards([&](EngineShard &s, int r) { return s.decode(token, picks[r]); });
      !st) {
    m.dropPages(q);
    m.stagingTokens.clear();
    return st;
  }
  q.tokens.push_back(token);
  m.stagingTokens.push_back(token);
  q.logitsAt = Impl::LogitsAt::Single;
  return agreed(picks, next);
}

int64_t Engine::stepPromptTokens() const { return impl->shards[0]->maxChunk; }

int64_t Engine::slots() const { return static_cast<int64_t>(impl->seqs.size()); }

int64_t Engine::slotLength(int64_t slot) const {
  return slot >= 0 && slot < slots() ? static_cast<int64_t>(impl->seqs[slot].tokens.size()) : 0;
}

int64_t Engine::reusablePrefix(const std::vector<int32_t> &ids) const {
  const Impl::Reuse found = impl->findReuse(ids, reusable(ids));
  return static_cast<int64_t>(std::max(found.fromStaging, found.fromPages()));
}

Status Engine::prefillSlot(int64_t slot, const std::vector<int32_t> &ids,
                           const Sampling &sampling, int32_t &next, int64_t &reused) {
  if (Status st = checkSlot(slot, slots()); !st)
    return st;
  if (Status st = checkSampling(sampling); !st)
    return st;
  return impl->prefillInto(slot, ids, &sampling, true, next, reused);
}

Status Engine::decodeSlots(const std::vector<SlotStep> &steps, std::vector<int32_t> &next) {
  if (steps.empty()) {
    next.clear();
    return Status::ok();
  }
  return decodeSlots(steps, next, nullptr);
}

Status Engine::decodeSlots(const std::vector<SlotStep> &steps, std::vector<int32_t> &next,
                           PromptChunk *chunk) {
  Impl &m = *impl;
  next.assign(steps.size(), -1);
  if (!m.pool)
    return Status::error("a batched step needs the paged cache: --max-batch of at least 2");
  std::vector<bool> seen(slots(), false);
  for (const SlotStep &step : steps) {
    const std::string name = "slot " + std::to_string(step.slot);
    if (Status st = checkSlot(step.slot, slots()); !st)
      return st;
    if (seen[step.slot])
      return Status::error(name + " is stepped twice in one batch");
    seen[step.slot] = true;
    if (m.seqs[step.slot].tokens.empty())
      return Status::error(name + " holds no sequence (prefill it first)");
    if (static_cast<int64_t>(m.seqs[step.slot].tokens.size()) >= m.maxSeq)
      return Status::error(name + ": the sequence reached --max-seq-len " +
                           std::to_string(m.maxSeq));
    if (Status st = checkSampling(step.sampling); !st)
      return st;
  }
  const EngineShard &first = *m.shards[0];
  if (chunk)
    if (Status st = m.checkChunk(*chunk, seen[chunk->slot]); !st)
      return st;
  // Rows computed only in the staging rows go to their pages first.
  if (m.staged >= 0 && seen[m.staged])
    if (Status st = m.flushStaged(); !st)
      return st;
  const int64_t rows = static_cast<int64_t>(steps.size()), M = first.pagesPerSequence();
  std::vector<int32_t> ids(rows), positions(rows), table(rows * M, 0);
  std::vector<int64_t> writes;
  std::vector<const Sampling *> sampling(rows);
  for (int64_t i = 0; i < rows; ++i) {
    Impl::Sequence &q = m.seqs[steps[i].slot];
    const int64_t len = static_cast<int64_t>(q.tokens.size());
    // The row's page: its last, or a new one. Only whole pages are
    // published (shared), so the page written is the sequence's own.
    if (len / kPage == static_cast<int64_t>(q.pages.size())) {
      const int64_t p = m.pool->allocate();
      if (p < 0)
        return Status::error("the KV cache's " + std::to_string(m.pool->pages()) +
                             " pages are all in use");
      q.pages.push_back(p);
    }
    ids[i] = steps[i].token;
    positions[i] = static_cast<int32_t>(len);
    sampling[i] = &steps[i].sampling;
    for (size_t j = 0; j < q.pages.size(); ++j)
      table[i * M + j] = static_cast<int32_t>(q.pages[j]);
    writes.push_back(q.pages[len / kPage]);
  }
  EngineShard::PromptChunk part;
  std::vector<int32_t> gather;
  if (chunk)
    if (Status st = m.startChunk(*chunk, rows > 0 ? first.rowBucket(rows) : 0, part, gather);
        !st)
      return st;
  // Every slot's logits of an earlier batched step are overwritten.
  for (Impl::Sequence &q : m.seqs)
    if (q.logitsAt == Impl::LogitsAt::Batch)
      q.logitsAt = Impl::LogitsAt::None;
  const std::vector<int32_t> writePages = distinctTable(writes, first.maxRows, m.pool->pages());
  std::vector<std::vector<int32_t>> picks(m.ranks());
  Status st = m.onShards([&](EngineShard &s, int r) {
    if (!gather.empty())
      if (Status gs = s.gatherRows(gather); !gs)
        return gs;
    return s.decodeBatch(ids, positions, table, writePages, sampling, picks[r],
                         chunk ? &part : nullptr);
  });
  for (int64_t i = 0; i < rows && st; ++i) {
    std::vector<int32_t> rowPicks;
    for (const auto &p : picks)
      rowPicks.push_back(p[i]);
    st = agreed(rowPicks, next[i]);
  }
  if (st && chunk && part.last) {
    std::vector<int32_t> chunkPicks;
    for (const auto &p : picks)
      chunkPicks.push_back(p[rows]);
    st = agreed(chunkPicks, chunk->next);
  }
  for (int64_t i = 0; i < rows; ++i) {
    Impl::Sequence &q = m.seqs[steps[i].slot];
    if (!st) {
      m.dropPages(q); // its row is unknown
      if (m.staged == steps[i].slot)
        m.staged = -1;
      continue;
    }
    q.tokens.push_back(steps[i].token);
    q.inPages = static_cast<int64_t>(q.tokens.size());
    q.logitsAt = Impl::LogitsAt::Batch;
    q.batchRow = i;
    m.publishPages(q);
  }
  if (chunk)
    m.endChunk(*chunk, part, st.isOk(), first.rowBucket(rows));
  return st;
}

Status Engine::moveSlot(int64_t from, int64_t to) {
  Impl &m = *impl;
  if (Status st = checkSlot(from, slots()); !st)
    return st;
  if (Status st = checkSlot(to, slots()); !st)
    return st;
  if (m.seqs[from].tokens.empty())
    return Status::error("slot " + std::to_string(from) + " holds no sequence to move");
  if (from == to)
    return Status::ok();
  m.dropPages(m.seqs[to]);
  if (m.staged == to)
    m.staged = -1;
  m.seqs[to] = std::move(m.seqs[from]);
  m.seqs[from] = Impl::Sequence();
  if (m.staged == from)
    m.staged = to;
  return Status::ok();
}

Status Engine::releaseSlot(int64_t slot) {
  Impl &m = *impl;
  if (Status st = checkSlot(slot, slots()); !st)
    return st;
  if (!m.pool)
    return Status::ok(); // the one sequence stays staged, a prefix to reuse
  Status st = Status::ok();
  if (m.staged == slot) {
    // Its whole pages are published for later prompts (where pages are
    // free for its rows); the staging rows keep its rows too.
    st = m.flushStaged();
    m.staged = -1;
  }
  m.dropPages(m.seqs[slot]);
  return st;
}

Engine::PageCounts Engine::pageCounts() const {
  const Impl &m = *impl;
  if (!m.pool)
    return {};
  return {m.pool->pages(), m.pool->inUse(), m.pool->cached(), kPage};
}

Status Engine::slotLogits(int64_t slot, std::vector<float> &logits) {
  Impl &m = *impl;
  if (Status st = checkSlot(slot, slots()); !st)
    return st;
  const Impl::Sequence &q = m.seqs[slot];
  switch (q.logitsAt) {
  case Impl::LogitsAt::Prefill:
    return m.onFirst([&](EngineShard &s) { return s.readLogits(s.prefillActs.logits, 0, logits); });
  case Impl::LogitsAt::Batch:
    return m.onFirst([&](EngineShard &s) { return s.batchLogits(q.batchRow, logits); });
  case Impl::LogitsAt::Single:
    return m.onFirst([&](EngineShard &s) { return s.readLogits(s.decodeActs.logits, 0, logits); });
  case Impl::LogitsAt::None:
    break;
  }
  return Status::error("slot " + std::to_string(slot) + " has no logits of its last pick");
}

} // namespace qwen3
