//===- PagePool.h - the paged KV cache's pages --------------------*- C++ -*-===//
//
// The host-side bookkeeping of the paged KV cache (docs/serving.md): which
// pages sequences hold, which hold a published prefix, which are free. The
// device memory lives with the engine; this decides page numbers only.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_PAGEPOOL_H
#define QWEN3_PAGEPOOL_H

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace qwen3 {

/// `pages` pages of `pageSize` positions. A sequence holds a list of pages;
/// a whole page can be published under the chained hash of the tokens it
/// holds and every token before them, and a later prompt that starts with
/// the same tokens takes those pages instead of computing them (prefix
/// caching). Pages are reference-counted; an unreferenced published page
/// stays cached until a new page is needed and it is the least recently
/// released (LRU eviction).
class PagePool {
public:
  PagePool(int64_t pages, int64_t pageSize);
  int64_t pages() const { return static_cast<int64_t>(refs_.size()); }
  int64_t pageSize() const { return pageSize_; }
  int64_t inUse() const { return inUse_; }                       ///< referenced by a sequence
  int64_t cached() const { return static_cast<int64_t>(lru_.size()); } ///< published, unreferenced
  int64_t available() const { return pages() - inUse_; }          ///< free or cached

  /// A page to write: never-published free pages first, else the least
  /// recently released cached page (its publication dropped). Its count
  /// becomes 1. -1 when every page is referenced.
  int64_t allocate();
  /// One more reference to `page` (a published page taken for a prefix).
  void retain(int64_t page);
  /// One reference less; at zero the page is cached if published, else free.
  void release(int64_t page);
  int64_t references(int64_t page) const;

  /// The chained hash of a page's `n` tokens after the page keyed `parent`
  /// (0 before a sequence's first page).
  static uint64_t chain(uint64_t parent, const int32_t *tokens, int64_t n);
  /// Publishes referenced, whole `page` as holding `tokens` (pageSize() of
  /// them) after the page keyed `parent`; returns its key. A key another
  /// page already publishes stays with that page.
  uint64_t publish(int64_t page, uint64_t parent, const int32_t *tokens);
  /// The published pages holding the longest run of whole leading pages of
  /// `ids`, at most `maxPages`, in order. Exact: each page's tokens and
  /// parent key are compared, not only the hash. Retains nothing.
  std::vector<int64_t> match(const std::vector<int32_t> &ids, int64_t maxPages) const;

private:
  struct Published {
    uint64_t key = 0, parent = 0;
    std::vector<int32_t> tokens;
  };
  void unpublish(int64_t page);
  int64_t pageSize_;
  int64_t inUse_ = 0;
  std::vector<int64_t> refs_;
  std::vector<int64_t> free_; ///< never-published unreferenced pages (a stack)
  std::list<int64_t> lru_;    ///< cached pages, least recently released first
  std::vector<std::list<int64_t>::iterator> lruAt_;
  std::vector<bool> inLru_;
  std::vector<Published> published_; ///< per page; key 0: not published
  std::unordered_map<uint64_t, int64_t> byKey_;
};

} // namespace qwen3

#endif // QWEN3_PAGEPOOL_H
