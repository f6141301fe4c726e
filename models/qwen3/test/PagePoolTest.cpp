//===- PagePoolTest.cpp - the paged KV cache's bookkeeping ----------------===//
//
// PagePool alone: allocation to exhaustion, reference counts, published
// prefixes matched exactly (tokens, not only hashes), least-recently-used
// eviction of cached pages, and a random run against a reference model.
//
//===----------------------------------------------------------------------===//

#include "qwen3/PagePool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

using namespace qwen3;

namespace {

std::vector<int32_t> tokens(int64_t n, int32_t seed) {
  std::vector<int32_t> t(n);
  for (int64_t i = 0; i < n; ++i)
    t[i] = seed * 1000 + static_cast<int32_t>(i);
  return t;
}

/// Publishes the whole pages of `ids` held in `pages`, chained.
void publishAll(PagePool &pool, const std::vector<int64_t> &pages,
                const std::vector<int32_t> &ids) {
  uint64_t key = 0;
  for (size_t i = 0; i < pages.size(); ++i)
    key = pool.publish(pages[i], key, ids.data() + i * pool.pageSize());
}

} // namespace

TEST(PagePoolTest, AllocatesDistinctPagesUntilExhausted) {
  PagePool pool(5, 4);
  std::set<int64_t> got;
  for (int i = 0; i < 5; ++i) {
    int64_t p = pool.allocate();
    ASSERT_GE(p, 0);
    ASSERT_LT(p, 5);
    EXPECT_TRUE(got.insert(p).second) << "page " << p << " handed out twice";
  }
  EXPECT_EQ(pool.allocate(), -1);
  EXPECT_EQ(pool.inUse(), 5);
  EXPECT_EQ(pool.available(), 0);
  pool.release(*got.begin());
  EXPECT_EQ(pool.available(), 1);
  EXPECT_EQ(pool.allocate(), *got.begin());
}

// Free pages go before cached ones: a published prefix survives as long as
// never-published pages remain.
TEST(PagePoolTest, FreePagesGoBeforeCachedOnes) {
  PagePool pool(3, 2);
  const std::vector<int32_t> ids = tokens(2, 8);
  const int64_t a = pool.allocate();
  pool.publish(a, 0, ids.data());
  pool.release(a);
  const int64_t b = pool.allocate(), c = pool.allocate();
  EXPECT_NE(b, a);
  EXPECT_NE(c, a);
  EXPECT_EQ(pool.match(ids, 1), std::vector<int64_t>{a});
  EXPECT_EQ(pool.allocate(), a); // only now
  EXPECT_TRUE(pool.match(ids, 1).empty());
}

TEST(PagePoolTest, ReferencesKeepAPageUntilTheLastRelease) {
  PagePool pool(2, 4);
  int64_t p = pool.allocate();
  pool.retain(p);
  EXPECT_EQ(pool.references(p), 2);
  pool.release(p);
  EXPECT_EQ(pool.inUse(), 1);
  pool.release(p);
  EXPECT_EQ(pool.inUse(), 0);
  EXPECT_EQ(pool.references(p), 0);
}

TEST(PagePoolTest, MatchesPublishedPagesExactly) {
  PagePool pool(8, 4);
  const std::vector<int32_t> ids = tokens(14, 1); // 3 whole pages and 2 tokens
  std::vector<int64_t> pages = {pool.allocate(), pool.allocate(), pool.allocate()};
  publishAll(pool, pages, ids);
  EXPECT_EQ(pool.match(ids, 10), pages);
  EXPECT_EQ(pool.match(ids, 2), std::vector<int64_t>(pages.begin(), pages.begin() + 2));
  // A prompt that leaves its third page partial matches two.
  EXPECT_EQ(pool.match(std::vector<int32_t>(ids.begin(), ids.begin() + 11), 10).size(), 2u);
  // A token differing in the second page stops the match after the first.
  std::vector<int32_t> other = ids;
  other[5] = 77;
  EXPECT_EQ(pool.match(other, 10), std::vector<int64_t>{pages[0]});
  // The same tokens of a later page after another first page: no match.
  std::vector<int32_t> shifted = tokens(4, 9);
  shifted.insert(shifted.end(), ids.begin() + 4, ids.end());
  EXPECT_TRUE(pool.match(shifted, 10).empty());
}

TEST(PagePoolTest, ADuplicatePublicationKeepsTheFirstPage) {
  PagePool pool(4, 4);
  const std::vector<int32_t> ids = tokens(4, 2);
  int64_t a = pool.allocate(), b = pool.allocate();
  const uint64_t ka = pool.publish(a, 0, ids.data());
  const uint64_t kb = pool.publish(b, 0, ids.data());
  EXPECT_EQ(ka, kb);
  EXPECT_EQ(pool.match(ids, 1), std::vector<int64_t>{a});
  // b, never published, is freed at its release, not cached.
  pool.release(b);
  EXPECT_EQ(pool.cached(), 0);
  pool.release(a);
  EXPECT_EQ(pool.cached(), 1);
}

TEST(PagePoolTest, EvictsTheLeastRecentlyReleasedCachedPage) {
  PagePool pool(3, 4);
  const std::vector<int32_t> first = tokens(4, 3), second = tokens(4, 4), third = tokens(4, 5);
  int64_t a = pool.allocate(), b = pool.allocate(), c = pool.allocate();
  pool.publish(a, 0, first.data());
  pool.publish(b, 0, second.data());
  pool.publish(c, 0, third.data());
  pool.release(a); // released first: evicted first
  pool.release(b);
  EXPECT_EQ(pool.cached(), 2);
  EXPECT_EQ(pool.allocate(), a);
  EXPECT_TRUE(pool.match(first, 1).empty()) << "an evicted page no longer matches";
  EXPECT_EQ(pool.match(second, 1), std::vector<int64_t>{b});
  // A cached page taken again is not evicted while referenced.
  pool.retain(b);
  EXPECT_EQ(pool.cached(), 0);
  EXPECT_EQ(pool.allocate(), -1);
  EXPECT_EQ(pool.match(second, 1), std::vector<int64_t>{b});
}

TEST(PagePoolTest, AChainBrokenByAnEvictionStopsTheMatchThere) {
  PagePool pool(4, 2);
  const std::vector<int32_t> ids = tokens(6, 6);
  std::vector<int64_t> pages = {pool.allocate(), pool.allocate(), pool.allocate()};
  publishAll(pool, pages, ids);
  pool.release(pages[1]); // the middle page, cached, then evicted
  pool.allocate();        // the free page
  EXPECT_EQ(pool.allocate(), pages[1]);
  EXPECT_EQ(pool.match(ids, 3), std::vector<int64_t>{pages[0]});
}

// A random run against a model of the counts: no referenced page is ever
// handed out, and the counts add up.
TEST(PagePoolTest, RandomOperationsKeepTheCounts) {
  PagePool pool(16, 2);
  std::mt19937 gen(42);
  std::map<int64_t, int64_t> refs;
  std::set<int64_t> published; // pages holding a publication (the model's)
  for (int step = 0; step < 5000; ++step) {
    const int op = static_cast<int>(gen() % 4);
    if (op == 0) {
      int64_t p = pool.allocate();
      if (p < 0) {
        ASSERT_EQ(static_cast<int64_t>(refs.size()), 16);
        continue;
      }
      ASSERT_EQ(refs.count(p), 0u) << "a referenced page was handed out";
      refs[p] = 1;
      published.erase(p); // evicted, or never published
    } else if (op == 1 && !refs.empty()) {
      auto it = std::next(refs.begin(), static_cast<long>(gen() % refs.size()));
      pool.release(it->first);
      if (--it->second == 0)
        refs.erase(it);
    } else if (op == 2 && !refs.empty()) {
      auto it = std::next(refs.begin(), static_cast<long>(gen() % refs.size()));
      pool.retain(it->first);
      ++it->second;
    } else if (op == 3 && !refs.empty()) {
      auto it = std::next(refs.begin(), static_cast<long>(gen() % refs.size()));
      const int32_t t[2] = {static_cast<int32_t>(gen() % 50), static_cast<int32_t>(gen() % 50)};
      // Published unless the page already is, or another holds the key.
      const bool taken = !pool.match({t[0], t[1]}, 1).empty();
      pool.publish(it->first, 0, t);
      if (!taken)
        published.insert(it->first);
    }
    int64_t cached = 0;
    for (int64_t p : published)
      cached += refs.count(p) ? 0 : 1;
    ASSERT_EQ(pool.cached(), cached) << "step " << step;
    ASSERT_EQ(pool.inUse(), static_cast<int64_t>(refs.size()));
    ASSERT_EQ(pool.available() + pool.inUse(), pool.pages());
    ASSERT_LE(pool.cached(), pool.available());
    for (const auto &[p, n] : refs)
      ASSERT_EQ(pool.references(p), n);
  }
}
