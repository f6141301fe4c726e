//===- ProgrammaticChainTest.cpp - chain bookkeeping -------------------===//

#include "ProgrammaticChain.h"

#include <gtest/gtest.h>

using namespace tile_runtime;

namespace {

TEST(ProgrammaticChain, AdmitsAKernelWithoutEarlyReads) {
  ProgrammaticChain chain;
  chain.recordWrite({0x1000, 0x2000});
  EXPECT_TRUE(chain.admits({}));
  chain.forget();
  EXPECT_TRUE(chain.admits({}));
}

TEST(ProgrammaticChain, RefusesAReadOfBytesTheChainWrote) {
  ProgrammaticChain chain;
  chain.recordWrite({0x1000, 0x1004}); // a position, written
  EXPECT_FALSE(chain.admits({{0x1000, 0x1004}}));
  EXPECT_FALSE(chain.admits({{0x0ff0, 0x1001}})); // overlaps its first byte
  EXPECT_FALSE(chain.admits({{0x1003, 0x2000}})); // and its last
  // Next to it, not over it.
  EXPECT_TRUE(chain.admits({{0x0ff0, 0x1000}}));
  EXPECT_TRUE(chain.admits({{0x1004, 0x1008}}));
  // One overlapping view of several is enough.
  EXPECT_FALSE(chain.admits({{0x4000, 0x4100}, {0x1002, 0x1003}}));
}

TEST(ProgrammaticChain, ARestartForgetsTheWrites) {
  ProgrammaticChain chain;
  chain.recordWrite({0x1000, 0x1004});
  chain.restart();
  EXPECT_TRUE(chain.admits({{0x1000, 0x1004}}));
}

TEST(ProgrammaticChain, UnlistedWritesRefuseEveryEarlyRead) {
  ProgrammaticChain chain;
  chain.forget(); // a replayed graph
  EXPECT_FALSE(chain.admits({{0x9000, 0x9004}}));
  chain.recordWrite({0x1000, 0x1004});
  EXPECT_FALSE(chain.admits({{0x9000, 0x9004}}));
  chain.restart();
  EXPECT_TRUE(chain.admits({{0x9000, 0x9004}}));
}

TEST(ProgrammaticChain, EmptyWritesAreNotRecorded) {
  ProgrammaticChain chain;
  chain.recordWrite({0x1000, 0x1000});
  EXPECT_TRUE(chain.admits({{0x0, 0x10000}}));
}

TEST(ProgrammaticChain, AChainPastItsLimitForgetsSoundly) {
  ProgrammaticChain chain;
  for (size_t i = 0; i <= ProgrammaticChain::kMaxRanges; ++i)
    chain.recordWrite({0x100000 + 16 * i, 0x100000 + 16 * i + 4});
  // No longer listed, so no early read is admitted, not even of bytes no
  // launch wrote.
  EXPECT_FALSE(chain.admits({{0x10, 0x14}}));
  chain.restart();
  EXPECT_TRUE(chain.admits({{0x10, 0x14}}));
}

} // namespace
