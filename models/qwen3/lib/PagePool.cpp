//===- PagePool.cpp - the paged KV cache's pages --------------------------===//

#include "qwen3/PagePool.h"

#include <algorithm>
#include <cassert>

namespace qwen3 {

PagePool::PagePool(int64_t pages, int64_t pageSize)
    : pageSize_(pageSize), refs_(pages, 0), lruAt_(pages), inLru_(pages, false),
      published_(pages) {
  // Handed out from the lowest page up.
  for (int64_t p = pages - 1; p >= 0; --p)
    free_.push_back(p);
}

int64_t PagePool::allocate() {
  int64_t page = -1;
  if (!free_.empty()) {
    page = free_.back();
    free_.pop_back();
  } else if (!lru_.empty()) {
    page = lru_.front();
    lru_.pop_front();
    inLru_[page] = false;
    unpublish(page);
  } else {
    return -1;
  }
  refs_[page] = 1;
  ++inUse_;
  return page;
}

void PagePool::retain(int64_t page) {
  assert(page >= 0 && page < pages());
  if (page < 0 || page >= pages())
    return;
  if (refs_[page]++ == 0) {
    ++inUse_;
    if (inLru_[page]) {
      lru_.erase(lruAt_[page]);
      inLru_[page] = false;
    }
  }
}

void PagePool::release(int64_t page) {
  assert(page >= 0 && page < pages() && refs_[page] > 0);
  if (page < 0 || page >= pages() || refs_[page] == 0)
    return;
  if (--refs_[page] > 0)
    return;
  --inUse_;
  if (published_[page].key != 0) {
    lruAt_[page] = lru_.insert(lru_.end(), page);
    inLru_[page] = true;
  } else {
    free_.push_back(page);
  }
}

int64_t PagePool::references(int64_t page) const {
  return page >= 0 && page < pages() ? refs_[page] : 0;
}

uint64_t PagePool::chain(uint64_t parent, const int32_t *tokens, int64_t n) {
  // splitmix64 steps over the parent key and each token; never 0 (0 marks
  // an unpublished page).
  auto mix = [](uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  uint64_t h = mix(parent ^ 0x51ed270b2f6a3c4dull);
  for (int64_t i = 0; i < n; ++i)
    h = mix(h ^ static_cast<uint32_t>(tokens[i]));
  return h ? h : 1;
}

uint64_t PagePool::publish(int64_t page, uint64_t parent, const int32_t *tokens) {
  const uint64_t key = chain(parent, tokens, pageSize_);
  assert(page >= 0 && page < pages() && refs_[page] > 0);
  if (page < 0 || page >= pages() || refs_[page] == 0 || published_[page].key != 0)
    return key;
  if (byKey_.count(key))
    return key; // another page holds these tokens already
  published_[page] = {key, parent, std::vector<int32_t>(tokens, tokens + pageSize_)};
  byKey_[key] = page;
  return key;
}

void PagePool::unpublish(int64_t page) {
  Published &p = published_[page];
  if (p.key == 0)
    return;
  auto it = byKey_.find(p.key);
  if (it != byKey_.end() && it->second == page)
    byKey_.erase(it);
  p = Published();
}

std::vector<int64_t> PagePool::match(const std::vector<int32_t> &ids, int64_t maxPages) const {
  std::vector<int64_t> out;
  uint64_t parent = 0;
  for (int64_t i = 0; i < maxPages && (i + 1) * pageSize_ <= static_cast<int64_t>(ids.size());
       ++i) {
    const int32_t *tokens = ids.data() + i * pageSize_;
    const uint64_t key = chain(parent, tokens, pageSize_);
    auto it = byKey_.find(key);
    if (it == byKey_.end())
      break;
    const Published &p = published_[it->second];
    if (p.parent != parent || !std::equal(p.tokens.begin(), p.tokens.end(), tokens))
      break;
    out.push_back(it->second);
    parent = key;
  }
  return out;
}

} // namespace qwen3
