//===- KernelCacheTest.cpp - hits, misses, corruption, concurrent writers --===//

#include "tile/Support/KernelCache.h"

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

using namespace tile;

namespace {

class KernelCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tile-cache-test", dir));
    directory = std::string(dir);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(directory); }

  static KernelCacheKeyInputs inputs() {
    KernelCacheKeyInputs in;
    in.module = "module bytes";
    in.target = "sm_90a";
    in.features = "+ptx83";
    in.optLevel = 3;
    in.pipelineOptions = "num-warps=4";
    in.emit = "cubin";
    in.toolchain = "ptxas 13.0";
    return in;
  }

  std::string directory;
};

TEST_F(KernelCacheTest, StoreThenHit) {
  KernelCache cache(directory + "/nested/dir");
  std::string key = KernelCache::computeKey(inputs());
  EXPECT_EQ(key.size(), 64u);
  EXPECT_FALSE(cache.lookup(key).has_value());
  std::string payload("binary\0payload\n with bytes", 26);
  ASSERT_FALSE(static_cast<bool>(cache.store(key, payload)));
  std::optional<std::string> hit = cache.lookup(key);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(*hit, payload);
  KernelCache::Stats s = cache.stats();
  EXPECT_EQ(s.entries, 1u);
  EXPECT_GT(s.bytes, payload.size());
}

TEST_F(KernelCacheTest, EveryInputChangesTheKey) {
  std::string base = KernelCache::computeKey(inputs());
  EXPECT_EQ(KernelCache::computeKey(inputs()), base) << "deterministic";
  auto changed = [&](auto mutate) {
    KernelCacheKeyInputs in = inputs();
    mutate(in);
    return KernelCache::computeKey(in);
  };
  EXPECT_NE(changed([](auto &in) { in.module += " "; }), base);
  EXPECT_NE(changed([](auto &in) { in.target = "sm_80"; }), base);
  EXPECT_NE(changed([](auto &in) { in.features = ""; }), base);
  EXPECT_NE(changed([](auto &in) { in.optLevel = 2; }), base);
  EXPECT_NE(changed([](auto &in) { in.pipelineOptions = "num-warps=8"; }), base);
  EXPECT_NE(changed([](auto &in) { in.emit = "ptx"; }), base);
  EXPECT_NE(changed([](auto &in) { in.toolchain = "ptxas 13.1"; }), base);
  // Fields are length-prefixed: moving bytes between fields changes the key.
  EXPECT_NE(changed([](auto &in) {
              in.target = "sm_90a+";
              in.features = "ptx83";
            }),
            base);
}

TEST_F(KernelCacheTest, CorruptEntriesAreReportedRemovedAndMissed) {
  KernelCache cache(directory);
  std::string key = KernelCache::computeKey(inputs());
  std::string payload(1000, 'x');
  auto expectCorrupt = [&](auto damage, const std::string &why) {
    ASSERT_FALSE(static_cast<bool>(cache.store(key, payload)));
    std::string path = cache.entryPath(key);
    auto buffer = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(static_cast<bool>(buffer));
    std::string bytes = (*buffer)->getBuffer().str();
    damage(bytes);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    std::string warning;
    EXPECT_FALSE(cache.lookup(key, &warning).has_value()) << why;
    EXPECT_NE(warning.find("ignoring corrupt entry"), std::string::npos);
    EXPECT_NE(warning.find(why), std::string::npos) << warning;
    EXPECT_FALSE(llvm::sys::fs::exists(path)) << "removed after detection";
  };
  expectCorrupt([](std::string &b) { b[b.size() - 10] ^= 1; },
                "checksum mismatch");
  expectCorrupt([](std::string &b) { b.resize(b.size() - 100); },
                "truncated: 900 of 1000 bytes");
  expectCorrupt([](std::string &b) { b = "garbage"; }, "no header");
  expectCorrupt([](std::string &b) { b[0] = 'X'; }, "bad header");
  // After a corrupt entry, a fresh store works again.
  ASSERT_FALSE(static_cast<bool>(cache.store(key, payload)));
  EXPECT_EQ(cache.lookup(key), payload);
}

TEST_F(KernelCacheTest, ConcurrentWritersOfOneKeyAllSucceed) {
  KernelCache cache(directory);
  std::string key = KernelCache::computeKey(inputs());
  std::string payload(1 << 20, 'k');
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&] {
      for (int j = 0; j < 5; ++j) {
        if (llvm::Error e = cache.store(key, payload)) {
          llvm::consumeError(std::move(e));
          ++failures;
        }
        std::optional<std::string> hit = cache.lookup(key);
        if (hit && *hit != payload)
          ++failures; // a reader must never see a partial entry
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(cache.lookup(key), payload);
  EXPECT_EQ(cache.stats().entries, 1u) << "no temporary files left behind";
}

TEST_F(KernelCacheTest, ConcurrentProcessesBothSucceed) {
  KernelCache cache(directory);
  std::string key = KernelCache::computeKey(inputs());
  std::string payload(1 << 20, 'p');
  pid_t children[2];
  for (pid_t &child : children) {
    child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int bad = 0;
      for (int j = 0; j < 20; ++j) {
        if (llvm::Error e = cache.store(key, payload)) {
          llvm::consumeError(std::move(e));
          ++bad;
        }
        std::optional<std::string> hit = cache.lookup(key);
        if (hit && *hit != payload)
          ++bad;
      }
      _exit(bad == 0 ? 0 : 1);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(cache.lookup(key), payload);
}

TEST_F(KernelCacheTest, ClearRemovesEverything) {
  KernelCache cache(directory);
  for (int i = 0; i < 3; ++i) {
    KernelCacheKeyInputs in = inputs();
    in.optLevel = i;
    ASSERT_FALSE(static_cast<bool>(
        cache.store(KernelCache::computeKey(in), "payload")));
  }
  EXPECT_EQ(cache.stats().entries, 3u);
  llvm::Expected<uint64_t> removed = cache.clear();
  ASSERT_TRUE(static_cast<bool>(removed));
  EXPECT_EQ(*removed, 3u);
  EXPECT_EQ(cache.stats().entries, 0u);
}

TEST_F(KernelCacheTest, DefaultDirectoryFollowsTheEnvironment) {
  setenv("TILE_CACHE_DIR", "/tmp/tile-explicit", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/tmp/tile-explicit");
  unsetenv("TILE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/tmp/xdg/tile");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/home/someone/.cache/tile");
}

TEST(CanonicalModuleBytes, SameProgramSameBytes) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<TileDialect>();
  // Same program: different SSA names, an unused constant, comments.
  auto a = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    tile.kernel @k(%x: !tile.view<in, 4xf32>) {
      %c0 = arith.constant 0 : index
      tile.return
    })mlir", mlir::ParserConfig(&ctx));
  auto b = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    // a comment
    tile.kernel @k(%input: !tile.view<in, 4xf32>) {
      tile.return
    })mlir", mlir::ParserConfig(&ctx));
  auto c = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    tile.kernel @k(%x: !tile.view<in, 8xf32>) {
      tile.return
    })mlir", mlir::ParserConfig(&ctx));
  ASSERT_TRUE(a && b && c);
  // Locations are part of the hash; strip them to compare programs alone.
  auto strip = [&](mlir::ModuleOp m) {
    mlir::Location unknown = mlir::UnknownLoc::get(&ctx);
    m->walk([&](mlir::Operation *op) {
      op->setLoc(unknown);
      for (mlir::Region &r : op->getRegions())
        for (mlir::Block &block : r)
          for (mlir::BlockArgument arg : block.getArguments())
            arg.setLoc(unknown);
    });
    return canonicalModuleBytes(m);
  };
  EXPECT_EQ(strip(*a), strip(*b));
  EXPECT_NE(strip(*a), strip(*c));
}

} // namespace
