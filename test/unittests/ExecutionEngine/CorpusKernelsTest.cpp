//===- CorpusKernelsTest.cpp - the ownership corpus, run on the host ------===//
//
// The accepted kernels of test/Dialect/Tile/Transforms/ownership-accept.mlir
// compiled once as one module, then run on random inputs with poisoned
// outputs and compared with C++ references in double precision.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtils.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <limits>

using namespace tile;
using namespace tile::testing;

namespace {

class CorpusKernels : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    auto file = llvm::MemoryBuffer::getFile(
        TILE_SOURCE_DIR "/test/Dialect/Tile/Transforms/ownership-accept.mlir");
    ASSERT_TRUE(static_cast<bool>(file));
    runner = new HostRunner(compileOrDie((*file)->getBuffer()));
  }
  static void TearDownTestSuite() {
    delete runner;
    runner = nullptr;
  }
  static HostRunner *runner;
};
HostRunner *CorpusKernels::runner = nullptr;

std::vector<uint16_t> halves(const std::vector<float> &v) {
  std::vector<uint16_t> h(v.size());
  std::transform(v.begin(), v.end(), h.begin(), toHalf);
  return h;
}

std::vector<float> fromHalves(const std::vector<uint16_t> &h) {
  std::vector<float> v(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    if (h[i] == kPoison16) {
      float p;
      std::memcpy(&p, &kPoison32, 4);
      v[i] = p;
    } else {
      v[i] = fromHalf(h[i]);
    }
  }
  return v;
}

TEST_F(CorpusKernels, CopyRows) {
  const int rows = 3;
  std::vector<uint16_t> x = halves(randomFloats(rows * 4096, -4, 4, 41));
  std::vector<uint16_t> y(rows * 4096, kPoison16);
  runOrFail(*runner, "copy_rows",
            {HostArg::view(x.data(), {rows, 4096}), HostArg::view(y.data(), {rows, 4096})},
            {rows, 1, 1});
  EXPECT_EQ(x, y);
}

TEST_F(CorpusKernels, GEMV) {
  const int n = 10; // 3 blocks of 4 rows, the last partial
  std::vector<uint16_t> w = halves(randomFloats(n * 4096, -1, 1, 42));
  std::vector<uint16_t> x = halves(randomFloats(4096, -1, 1, 43));
  std::vector<uint16_t> y(n, kPoison16);
  runOrFail(*runner, "gemv",
            {HostArg::view(w.data(), {n, 4096}), HostArg::view(x.data(), {4096}),
             HostArg::view(y.data(), {n})},
            {3, 1, 1});
  // The kernel multiplies in f16 (one rounding per product) and sums in f32.
  std::vector<double> ref(n, 0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 4096; ++k)
      ref[i] += double(fromHalf(toHalf(fromHalf(w[i * 4096 + k]) * fromHalf(x[k]))));
  expectClose(fromHalves(y), ref, 2e-3, 2e-2);
}

TEST_F(CorpusKernels, GEMM2D) {
  const int M = 130, N = 140, K = 70;
  std::vector<uint16_t> a = halves(randomFloats(M * K, -1, 1, 44));
  std::vector<uint16_t> b = halves(randomFloats(K * N, -1, 1, 45));
  std::vector<float> c = poisoned32(M * N);
  runOrFail(*runner, "gemm_2d",
            {HostArg::view(a.data(), {M, K}), HostArg::view(b.data(), {K, N}),
             HostArg::view(c.data(), {M, N})},
            {2, 2, 1});
  std::vector<double> ref(M * N, 0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < N; ++j)
        ref[i * N + j] += double(fromHalf(a[i * K + k])) * fromHalf(b[k * N + j]);
  expectClose(c, ref, 1e-5, 1e-5);
}

TEST_F(CorpusKernels, GroupedGEMMOrderCoversEveryTileOnce) {
  // 8 row tiles x 32 column tiles, 256 programs in grouped order: every
  // element written exactly by the swizzled map (zeros over poison).
  const int M = 8 * 128, N = 4096;
  std::vector<uint16_t> a(M * N, toHalf(1.0f));
  std::vector<uint16_t> c(M * N, kPoison16);
  runOrFail(*runner, "gemm_grouped",
            {HostArg::view(a.data(), {M, N}), HostArg::view(c.data(), {M, N})},
            {256, 1, 1});
  EXPECT_EQ(std::count(c.begin(), c.end(), uint16_t(0)), M * N);
}

TEST_F(CorpusKernels, CausalFlashAttentionWithGQA) {
  const int S = 70, H = 32, KVH = 8, D = 128;
  std::vector<uint16_t> q = halves(randomFloats(S * H * D, -0.5, 0.5, 46));
  std::vector<uint16_t> k = halves(randomFloats(S * KVH * D, -0.5, 0.5, 47));
  std::vector<uint16_t> v = halves(randomFloats(S * KVH * D, -1, 1, 48));
  std::vector<uint16_t> o(S * H * D, kPoison16);
  runOrFail(*runner, "flash_attention_causal",
            {HostArg::view(q.data(), {S, H * D}), HostArg::view(k.data(), {S, KVH * D}),
             HostArg::view(v.data(), {S, KVH * D}), HostArg::view(o.data(), {S, H * D})},
            {2, 32, 1});
  // Reference: softmax(q k^T) v over keys 0..t (no scaling in this kernel).
  std::vector<double> ref(S * H * D);
  for (int h = 0; h < H; ++h) {
    int kh = h / (H / KVH);
    for (int t = 0; t < S; ++t) {
      std::vector<double> s(t + 1);
      double mx = -1e300;
      for (int u = 0; u <= t; ++u) {
        double dot = 0;
        for (int d = 0; d < D; ++d)
          dot += double(fromHalf(q[t * H * D + h * D + d])) *
                 fromHalf(k[u * KVH * D + kh * D + d]);
        s[u] = dot;
        mx = std::max(mx, dot);
      }
      double sum = 0;
      for (double &x : s)
        sum += (x = std::exp(x - mx));
      for (int d = 0; d < D; ++d) {
        double acc = 0;
        for (int u = 0; u <= t; ++u)
          acc += s[u] * fromHalf(v[u * KVH * D + kh * D + d]);
        ref[t * H * D + h * D + d] = acc / sum;
      }
    }
  }
  // P is rounded to f16 before P V: ~1e-3 relative.
  expectClose(fromHalves(o), ref, 5e-3, 5e-3);
}

TEST_F(CorpusKernels, EmbeddingGatherPadsBadIds) {
  const int T = 5, V = 151936, Dm = 1024;
  std::vector<int32_t> ids = {7, 151935, -3, 151936, 42};
  std::vector<uint16_t> table(size_t(V) * Dm);
  for (int id : {7, 151935, 42})
    for (int d = 0; d < Dm; ++d)
      table[size_t(id) * Dm + d] = toBF16(float(id % 97) + d * 0.25f);
  std::vector<uint16_t> out(T * Dm, kPoison16);
  runOrFail(*runner, "embedding",
            {HostArg::view(ids.data(), {T}), HostArg::view(table.data(), {V, Dm}),
             HostArg::view(out.data(), {T, Dm})},
            {T, 1, 1});
  for (int t = 0; t < T; ++t)
    for (int d = 0; d < Dm; ++d) {
      uint16_t expected = ids[t] >= 0 && ids[t] < V
                              ? table[size_t(ids[t]) * Dm + d]
                              : uint16_t(0);
      ASSERT_EQ(out[t * Dm + d], expected) << "token " << t << " dim " << d;
    }
}

TEST_F(CorpusKernels, TwoLevelArgmax) {
  const int V = 151936;
  std::vector<float> logits = randomFloats(V, -10, 10, 49);
  logits[123457] = 50;
  logits[150000] = 50; // tie: the smaller index wins
  std::vector<float> vals = poisoned32(38);
  std::vector<int32_t> idxs(38, -1), token(1, -1);
  runOrFail(*runner, "argmax_stage1",
            {HostArg::view(logits.data(), {V}), HostArg::view(vals.data(), {38}),
             HostArg::view(idxs.data(), {38})},
            {38, 1, 1});
  runOrFail(*runner, "argmax_stage2",
            {HostArg::view(vals.data(), {38}), HostArg::view(idxs.data(), {38}),
             HostArg::view(token.data(), {1})},
            {1, 1, 1});
  EXPECT_EQ(token[0], 123457);
}

TEST_F(CorpusKernels, SwiGLU) {
  const int n = 3000; // not a multiple of the 1024 block
  std::vector<uint16_t> g = halves(randomFloats(n, -4, 4, 50));
  std::vector<uint16_t> u = halves(randomFloats(n, -2, 2, 51));
  std::vector<uint16_t> o(n, kPoison16);
  runOrFail(*runner, "swiglu",
            {HostArg::view(g.data(), {n}), HostArg::view(u.data(), {n}),
             HostArg::view(o.data(), {n})},
            {3, 1, 1});
  std::vector<double> ref(n);
  for (int i = 0; i < n; ++i) {
    double x = fromHalf(g[i]);
    ref[i] = x / (1 + std::exp(-x)) * fromHalf(u[i]);
  }
  expectClose(fromHalves(o), ref, 1e-3, 1e-3);
}

TEST_F(CorpusKernels, KVCacheWriteTouchesOnlyItsRow) {
  const int L = 16, pos = 9;
  std::vector<uint16_t> k = halves(randomFloats(8 * 128, -1, 1, 52));
  std::vector<uint16_t> cache = halves(randomFloats(L * 8 * 128, -1, 1, 53));
  std::vector<uint16_t> before = cache;
  runOrFail(*runner, "kv_write_scalar_pos",
            {HostArg::view(k.data(), {8, 128}), HostArg::view(cache.data(), {L, 8, 128}),
             HostArg::i64(pos)},
            {8, 1, 1});
  for (int t = 0; t < L; ++t)
    for (int i = 0; i < 8 * 128; ++i)
      ASSERT_EQ(cache[t * 1024 + i], t == pos ? k[i] : before[t * 1024 + i])
          << "position " << t << " element " << i;
}

TEST_F(CorpusKernels, TransposeMap) {
  std::vector<float> x = randomFloats(512 * 256, -1, 1, 54);
  std::vector<float> y = poisoned32(256 * 512);
  runOrFail(*runner, "transpose_map",
            {HostArg::view(x.data(), {512, 256}), HostArg::view(y.data(), {256, 512})},
            {8, 4, 1});
  std::vector<double> ref(256 * 512);
  for (int i = 0; i < 512; ++i)
    for (int j = 0; j < 256; ++j)
      ref[j * 512 + i] = x[i * 256 + j];
  expectClose(y, ref, 0);
}

TEST_F(CorpusKernels, QKNormRopeRotateHalf) {
  const int T = 3;
  std::vector<uint16_t> q(T * 4096);
  std::vector<float> qf = randomFloats(T * 4096, -2, 2, 55);
  for (int i = 0; i < T * 4096; ++i)
    q[i] = toBF16(qf[i]);
  std::vector<float> cs = randomFloats(T * 128, -1, 1, 56);
  std::vector<uint16_t> o(T * 4096, kPoison16);
  runOrFail(*runner, "qk_norm_rope",
            {HostArg::view(q.data(), {T, 4096}), HostArg::view(cs.data(), {T, 128}),
             HostArg::view(o.data(), {T, 4096})},
            {T, 32, 1});
  std::vector<float> got;
  std::vector<double> ref;
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < 32; ++h)
      for (int d = 0; d < 128; ++d) {
        auto at = [&](int dd) { return double(fromBF16(q[t * 4096 + h * 128 + dd])); };
        double rot = d < 64 ? -at(d + 64) : at(d - 64);
        ref.push_back(at(d) * cs[t * 128 + d] + rot * cs[t * 128 + d]);
        uint16_t bits = o[t * 4096 + h * 128 + d];
        ASSERT_NE(bits, kPoison16);
        got.push_back(fromBF16(bits));
      }
  expectClose(got, ref, 8e-3, 1e-2);
}

TEST_F(CorpusKernels, SubTileLoopsWriteWholeBlocks) {
  const int rows = 100; // two 64-row blocks, the second partial
  std::vector<float> y = poisoned32(rows * 256);
  runOrFail(*runner, "subtile_loop",
            {HostArg::view(y.data(), {rows, 256}), HostArg::f32(2.5f)}, {2, 1, 1});
  expectClose(y, std::vector<double>(rows * 256, 2.5), 0);
  std::vector<float> z = poisoned32(256 * 128);
  runOrFail(*runner, "nested_subtiles",
            {HostArg::view(z.data(), {256, 128}), HostArg::f32(-1.5f)}, {4, 1, 1});
  // Columns 32..63 and 96..127 of each block (j = 1, 3) are written.
  for (int i = 0; i < 256; ++i)
    for (int j = 0; j < 128; ++j) {
      bool written = (j / 32) % 2 == 1 && (i % 64) < 64;
      if (written)
        ASSERT_EQ(z[i * 128 + j], -1.5f) << i << "," << j;
      else
        ASSERT_TRUE(isPoison(z[i * 128 + j])) << i << "," << j;
    }
}

} // namespace
