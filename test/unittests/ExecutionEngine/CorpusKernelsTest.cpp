//===- CorpusKernelsTest.cpp - the ownership corpus, run on the host ------===//
//
// The accepted kernels of test/Dialect/Tile/Transforms/ownership-accept.mlir
// compiled once as one module, then run on random inputs with poisoned
// outputs and compared with C++ references in double precision.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtils.h"

#include "tile/Language/Emitter.h"
#include "tile/Language/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <set>

#include <algorithm>
#include <limits>

using namespace tile;
using namespace tile::testing;

namespace {

/// The tile IR of a .tile file (all kernels, default parameters), printed;
/// empty after reporting errors. Fills `names` with its kernels.
std::string emitTileSource(const char *path, std::set<std::string> &names) {
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  llvm::SourceMgr sm;
  unsigned id = sm.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  lang::Module ast;
  if (!lang::parseBuffer(sm, id, ast))
    return "";
  std::string error;
  auto instances = lang::selectInstances(ast, {}, {}, error);
  if (failed(instances)) {
    ADD_FAILURE() << error;
    return "";
  }
  mlir::MLIRContext context;
  mlir::SourceMgrDiagnosticHandler handler(sm, &context);
  auto module = lang::emitKernels(context, sm, ast, *instances);
  if (!module)
    return "";
  for (const lang::KernelInstance &i : *instances)
    names.insert(i.name);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// The corpus compiled from its MLIR or from its .tile port
/// (test/Language/corpus.tile): the same tests run on both.
class CorpusKernels : public ::testing::TestWithParam<std::string> {
protected:
  static void SetUpTestSuite() {
    auto file = llvm::MemoryBuffer::getFile(
        TILE_SOURCE_DIR "/test/Dialect/Tile/Transforms/ownership-accept.mlir");
    ASSERT_TRUE(static_cast<bool>(file));
    runners["mlir"] = new HostRunner(compileOrDie((*file)->getBuffer()));
    llvm::StringRef text = (*file)->getBuffer();
    for (size_t at = text.find("tile.kernel @"); at != llvm::StringRef::npos;
         at = text.find("tile.kernel @", at + 1)) {
      llvm::StringRef rest = text.drop_front(at + strlen("tile.kernel @"));
      mlirKernels.insert(rest.take_until([](char c) {
                               return !llvm::isAlnum(c) && c != '_';
                             }).str());
    }
    std::string tileModule = emitTileSource(
        TILE_SOURCE_DIR "/test/Language/corpus.tile", tileKernels);
    ASSERT_FALSE(tileModule.empty());
    runners["tile"] = new HostRunner(compileOrDie(tileModule));
  }
  static void TearDownTestSuite() {
    for (auto &[k, r] : runners)
      delete r;
    runners.clear();
  }
  void SetUp() override { runner = runners.at(GetParam()); }
  static std::map<std::string, HostRunner *> runners;
  static std::set<std::string> tileKernels, mlirKernels;
  HostRunner *runner = nullptr;
};
std::map<std::string, HostRunner *> CorpusKernels::runners;
std::set<std::string> CorpusKernels::tileKernels;
std::set<std::string> CorpusKernels::mlirKernels;

#define RUN_KERNEL(kernel, ...) runOrFail(*runner, kernel, __VA_ARGS__)

// Every accepted kernel of the ownership corpus has its .tile port (and the
// port has nothing else).
TEST_P(CorpusKernels, TilePortHasEveryAcceptedKernel) {
  EXPECT_GE(mlirKernels.size(), 27u);
  EXPECT_EQ(tileKernels, mlirKernels);
}

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

TEST_P(CorpusKernels, CopyRows) {
  const int rows = 3;
  std::vector<uint16_t> x = halves(randomFloats(rows * 4096, -4, 4, 41));
  std::vector<uint16_t> y(rows * 4096, kPoison16);
  RUN_KERNEL("copy_rows",
            {HostArg::view(x.data(), {rows, 4096}), HostArg::view(y.data(), {rows, 4096})},
            {rows, 1, 1});
  EXPECT_EQ(x, y);
}

TEST_P(CorpusKernels, GEMV) {
  const int n = 10; // 3 blocks of 4 rows, the last partial
  std::vector<uint16_t> w = halves(randomFloats(n * 4096, -1, 1, 42));
  std::vector<uint16_t> x = halves(randomFloats(4096, -1, 1, 43));
  std::vector<uint16_t> y(n, kPoison16);
  RUN_KERNEL("gemv",
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

TEST_P(CorpusKernels, GEMM2D) {
  const int M = 130, N = 140, K = 70;
  std::vector<uint16_t> a = halves(randomFloats(M * K, -1, 1, 44));
  std::vector<uint16_t> b = halves(randomFloats(K * N, -1, 1, 45));
  std::vector<float> c = poisoned32(M * N);
  RUN_KERNEL("gemm_2d",
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

TEST_P(CorpusKernels, GroupedGEMMOrderCoversEveryTileOnce) {
  // 8 row tiles x 32 column tiles, 256 programs in grouped order: every
  // element written exactly by the swizzled map (zeros over poison).
  const int M = 8 * 128, N = 4096;
  std::vector<uint16_t> a(M * N, toHalf(1.0f));
  std::vector<uint16_t> c(M * N, kPoison16);
  RUN_KERNEL("gemm_grouped",
            {HostArg::view(a.data(), {M, N}), HostArg::view(c.data(), {M, N})},
            {256, 1, 1});
  EXPECT_EQ(std::count(c.begin(), c.end(), uint16_t(0)), M * N);
}

TEST_P(CorpusKernels, CausalFlashAttentionWithGQA) {
  const int S = 70, H = 32, KVH = 8, D = 128;
  std::vector<uint16_t> q = halves(randomFloats(S * H * D, -0.5, 0.5, 46));
  std::vector<uint16_t> k = halves(randomFloats(S * KVH * D, -0.5, 0.5, 47));
  std::vector<uint16_t> v = halves(randomFloats(S * KVH * D, -1, 1, 48));
  std::vector<uint16_t> o(S * H * D, kPoison16);
  RUN_KERNEL("flash_attention_causal",
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

TEST_P(CorpusKernels, EmbeddingGatherPadsBadIds) {
  const int T = 5, V = 151936, Dm = 1024;
  std::vector<int32_t> ids = {7, 151935, -3, 151936, 42};
  std::vector<uint16_t> table(size_t(V) * Dm);
  for (int id : {7, 151935, 42})
    for (int d = 0; d < Dm; ++d)
      table[size_t(id) * Dm + d] = toBF16(float(id % 97) + d * 0.25f);
  std::vector<uint16_t> out(T * Dm, kPoison16);
  RUN_KERNEL("embedding",
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

TEST_P(CorpusKernels, TwoLevelArgmax) {
  const int V = 151936;
  std::vector<float> logits = randomFloats(V, -10, 10, 49);
  logits[123457] = 50;
  logits[150000] = 50; // tie: the smaller index wins
  std::vector<float> vals = poisoned32(38);
  std::vector<int32_t> idxs(38, -1), token(1, -1);
  RUN_KERNEL("argmax_stage1",
            {HostArg::view(logits.data(), {V}), HostArg::view(vals.data(), {38}),
             HostArg::view(idxs.data(), {38})},
            {38, 1, 1});
  RUN_KERNEL("argmax_stage2",
            {HostArg::view(vals.data(), {38}), HostArg::view(idxs.data(), {38}),
             HostArg::view(token.data(), {1})},
            {1, 1, 1});
  EXPECT_EQ(token[0], 123457);
}

TEST_P(CorpusKernels, SwiGLU) {
  const int n = 3000; // not a multiple of the 1024 block
  std::vector<uint16_t> g = halves(randomFloats(n, -4, 4, 50));
  std::vector<uint16_t> u = halves(randomFloats(n, -2, 2, 51));
  std::vector<uint16_t> o(n, kPoison16);
  RUN_KERNEL("swiglu",
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

TEST_P(CorpusKernels, KVCacheWriteTouchesOnlyItsRow) {
  const int L = 16, pos = 9;
  std::vector<uint16_t> k = halves(randomFloats(8 * 128, -1, 1, 52));
  std::vector<uint16_t> cache = halves(randomFloats(L * 8 * 128, -1, 1, 53));
  std::vector<uint16_t> before = cache;
  RUN_KERNEL("kv_write_scalar_pos",
            {HostArg::view(k.data(), {8, 128}), HostArg::view(cache.data(), {L, 8, 128}),
             HostArg::i64(pos)},
            {8, 1, 1});
  for (int t = 0; t < L; ++t)
    for (int i = 0; i < 8 * 128; ++i)
      ASSERT_EQ(cache[t * 1024 + i], t == pos ? k[i] : before[t * 1024 + i])
          << "position " << t << " element " << i;
}

TEST_P(CorpusKernels, TransposeMap) {
  std::vector<float> x = randomFloats(512 * 256, -1, 1, 54);
  std::vector<float> y = poisoned32(256 * 512);
  RUN_KERNEL("transpose_map",
            {HostArg::view(x.data(), {512, 256}), HostArg::view(y.data(), {256, 512})},
            {8, 4, 1});
  std::vector<double> ref(256 * 512);
  for (int i = 0; i < 512; ++i)
    for (int j = 0; j < 256; ++j)
      ref[j * 512 + i] = x[i * 256 + j];
  expectClose(y, ref, 0);
}

TEST_P(CorpusKernels, QKNormRopeRotateHalf) {
  const int T = 3;
  std::vector<uint16_t> q(T * 4096);
  std::vector<float> qf = randomFloats(T * 4096, -2, 2, 55);
  for (int i = 0; i < T * 4096; ++i)
    q[i] = toBF16(qf[i]);
  std::vector<float> cs = randomFloats(T * 128, -1, 1, 56);
  std::vector<uint16_t> o(T * 4096, kPoison16);
  RUN_KERNEL("qk_norm_rope",
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

TEST_P(CorpusKernels, SubTileLoopsWriteWholeBlocks) {
  const int rows = 100; // two 64-row blocks, the second partial
  std::vector<float> y = poisoned32(rows * 256);
  RUN_KERNEL("subtile_loop",
            {HostArg::view(y.data(), {rows, 256}), HostArg::f32(2.5f)}, {2, 1, 1});
  expectClose(y, std::vector<double>(rows * 256, 2.5), 0);
  std::vector<float> z = poisoned32(256 * 128);
  RUN_KERNEL("nested_subtiles",
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

TEST_P(CorpusKernels, RMSNormRows16BF16) {
  const int R = 20; // two blocks of 16 rows, the second partial
  std::vector<float> xf = randomFloats(R * 4096, -3, 3, 60);
  std::vector<uint16_t> x(R * 4096), w(4096, toBF16(1.0f)), y(R * 4096, kPoison16);
  for (int i = 0; i < R * 4096; ++i) x[i] = toBF16(xf[i]);
  RUN_KERNEL("rmsnorm_rows16",
            {HostArg::view(x.data(), {R, 4096}), HostArg::view(w.data(), {4096}),
             HostArg::view(y.data(), {R, 4096}), HostArg::f32(1e-6f)},
            {2, 1, 1});
  // This kernel divides by the row's sum of squares, not its mean (no 1/n).
  std::vector<float> got;
  std::vector<double> ref;
  for (int r = 0; r < R; ++r) {
    double ss = 0;
    for (int c = 0; c < 4096; ++c) ss += double(fromBF16(x[r * 4096 + c])) * fromBF16(x[r * 4096 + c]);
    for (int c = 0; c < 4096; ++c) {
      ASSERT_NE(y[r * 4096 + c], kPoison16);
      got.push_back(fromBF16(y[r * 4096 + c]));
      ref.push_back(fromBF16(x[r * 4096 + c]) / std::sqrt(ss + 1e-6));
    }
  }
  expectClose(got, ref, 8e-3, 1e-4);
}

TEST_P(CorpusKernels, AddRMSNormWritesResidualInPlace) {
  const int R = 4;
  std::vector<uint16_t> x = halves(randomFloats(R * 1024, -1, 1, 61));
  std::vector<uint16_t> res = halves(randomFloats(R * 1024, -1, 1, 62));
  std::vector<uint16_t> before = res, y(R * 1024, kPoison16);
  RUN_KERNEL("add_rmsnorm",
            {HostArg::view(x.data(), {R, 1024}), HostArg::view(res.data(), {R, 1024}),
             HostArg::view(y.data(), {R, 1024})},
            {R, 1, 1});
  for (int i = 0; i < R * 1024; ++i) {
    uint16_t sum = toHalf(fromHalf(x[i]) + fromHalf(before[i]));
    ASSERT_EQ(res[i], sum) << i;
    ASSERT_EQ(y[i], sum) << i;
  }
}

TEST_P(CorpusKernels, SplitKPartials) {
  const int N = 40; // 3 column blocks of 16, the last partial
  std::vector<uint16_t> w = halves(randomFloats(N * 4096, -1, 1, 63));
  std::vector<float> part = poisoned32(8 * N);
  RUN_KERNEL("gemv_splitk",
            {HostArg::view(w.data(), {N, 4096}), HostArg::view(part.data(), {8, N}, {N, 1})},
            {3, 8, 1});
  std::vector<double> ref(8 * N, 0);
  for (int ks = 0; ks < 8; ++ks)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < 512; ++k)
        ref[ks * N + n] += fromHalf(w[n * 4096 + ks * 512 + k]);
  expectClose(part, ref, 1e-5, 1e-4);
}

TEST_P(CorpusKernels, DecodeAttentionSplitAndMerge) {
  const int L = 100, H = 32, S = 16;
  std::vector<uint16_t> q = halves(randomFloats(H * 128, -1, 1, 64));
  std::vector<uint16_t> kc = halves(randomFloats(size_t(L) * 8 * 128, -1, 1, 65));
  std::vector<float> po = poisoned32(H * S * 128), pl = poisoned32(H * S);
  RUN_KERNEL("decode_attention_split",
            {HostArg::view(q.data(), {H, 128}), HostArg::view(kc.data(), {L, 8, 128}),
             HostArg::view(po.data(), {H, S, 128}), HostArg::view(pl.data(), {H, S}),
             HostArg::i64(L)},
            {H, S, 1});
  // Partial s of head h: column sums of cache rows [64 s, 64 s + 64) of kv
  // head h / 4 (padding past L); lse: the max of those sums.
  std::vector<double> rpo(H * S * 128, 0), rpl(H * S);
  for (int h = 0; h < H; ++h)
    for (int s = 0; s < S; ++s) {
      double mx = -1e300;
      for (int d = 0; d < 128; ++d) {
        double acc = 0;
        for (int t = 64 * s; t < std::min(64 * s + 64, L); ++t)
          acc += fromHalf(kc[(size_t(t) * 8 + h / 4) * 128 + d]);
        rpo[(h * S + s) * 128 + d] = acc;
        mx = std::max(mx, acc);
      }
      rpl[h * S + s] = mx;
    }
  expectClose(po, rpo, 1e-5, 1e-4);
  expectClose(pl, rpl, 1e-5, 1e-4);
  // Merge: out[h] = sum_s exp(lse) * partial, to f16.
  std::vector<float> plse(H * S);
  for (int i = 0; i < H * S; ++i) plse[i] = 0.01f * float(i % 7);
  std::vector<uint16_t> out(H * 128, kPoison16);
  RUN_KERNEL("decode_attention_merge",
            {HostArg::view(po.data(), {H, S, 128}), HostArg::view(plse.data(), {H, S}),
             HostArg::view(out.data(), {H, 128})},
            {H, 1, 1});
  std::vector<double> ref(H * 128, 0);
  for (int h = 0; h < H; ++h)
    for (int s = 0; s < S; ++s)
      for (int d = 0; d < 128; ++d)
        ref[h * 128 + d] += std::exp(double(plse[h * S + s])) * po[(h * S + s) * 128 + d];
  expectClose(fromHalves(out), ref, 2e-3, 1e-2);
}

TEST_P(CorpusKernels, KVWriteAtADeviceSidePositionIsClamped) {
  std::vector<uint16_t> k = halves(randomFloats(8 * 128, -1, 1, 66));
  for (int32_t pos : {5, -3, 9999}) {
    std::vector<uint16_t> cache(size_t(4096) * 8 * 128, 0x3c00); // 1.0
    std::vector<int32_t> posbuf = {pos};
    RUN_KERNEL("kv_write_device_pos",
              {HostArg::view(k.data(), {8, 128}), HostArg::view(cache.data(), {4096, 8, 128}),
               HostArg::view(posbuf.data(), {1})},
              {8, 1, 1});
    int row = std::clamp(pos, 0, 4095);
    for (int t : {0, row, 4095})
      for (int i = 0; i < 8 * 128; ++i)
        ASSERT_EQ(cache[size_t(t) * 1024 + i], t == row ? k[i] : uint16_t(0x3c00))
            << "pos " << pos << " row " << t;
  }
}

TEST_P(CorpusKernels, SmallGridKernels) {
  // elementwise_2d: exp into a column-major output.
  const int M = 40, N = 70;
  std::vector<float> x = randomFloats(M * N, -2, 2, 67), y = poisoned32(M * N);
  RUN_KERNEL("elementwise_2d",
            {HostArg::view(x.data(), {M, N}), HostArg::view(y.data(), {M, N}, {1, M})},
            {2, 3, 1});
  std::vector<double> ref(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) ref[j * M + i] = std::exp(double(x[i * N + j]));
  expectClose(y, ref, 1e-6);

  // batched_3d: a splat into every block of a 3-D grid.
  std::vector<uint16_t> b(3 * 64 * 256, kPoison16);
  RUN_KERNEL("batched_3d",
            {HostArg::view(b.data(), {3, 64, 256}), HostArg::half(toHalf(0.75f))},
            {4, 4, 3});
  EXPECT_EQ(std::count(b.begin(), b.end(), toHalf(0.75f)), 3 * 64 * 256);

  // rows_per_program_loop and conditional_claim: which rows get written.
  std::vector<float> r = poisoned32(12 * 128);
  RUN_KERNEL("rows_per_program_loop",
            {HostArg::view(r.data(), {12, 128}), HostArg::f32(4.0f)}, {3, 1, 1});
  expectClose(r, std::vector<double>(12 * 128, 4.0), 0);
  std::vector<float> c = poisoned32(5 * 64);
  RUN_KERNEL("conditional_claim",
            {HostArg::view(c.data(), {5, 64}), HostArg::f32(-2.0f)}, {5, 1, 1});
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 64; ++j) {
      if (i % 2 == 0)
        ASSERT_EQ(c[i * 64 + j], -2.0f);
      else
        ASSERT_TRUE(isPoison(c[i * 64 + j])) << "odd rows are not claimed";
    }

  // static_shapes: a copy with a partial last block of 1000 rows.
  std::vector<float> sx = randomFloats(1000 * 64, -1, 1, 68), sy = poisoned32(1000 * 64);
  RUN_KERNEL("static_shapes",
            {HostArg::view(sx.data(), {1000, 64}), HostArg::view(sy.data(), {1000, 64})},
            {8, 1, 1});
  expectClose(sy, std::vector<double>(sx.begin(), sx.end()), 0);
}

TEST_P(CorpusKernels, InOutSubTilesAndUncheckedScatter) {
  std::vector<float> y = randomFloats(3 * 512, -1, 1, 69);
  std::vector<double> ref(y.begin(), y.end());
  for (double &v : ref) v *= 2;
  RUN_KERNEL("inout_subtiles", {HostArg::view(y.data(), {3, 512})}, {3, 1, 1});
  expectClose(y, ref, 0);

  std::vector<float> oy = poisoned32(4 * 64), oz = poisoned32(4 * 64);
  std::vector<int32_t> perm = {3, 1, 0, 2};
  RUN_KERNEL("with_unchecked",
            {HostArg::view(oy.data(), {4, 64}), HostArg::view(oz.data(), {4, 64}),
             HostArg::view(perm.data(), {4}), HostArg::f32(1.25f)},
            {4, 1, 1});
  expectClose(oy, std::vector<double>(4 * 64, 1.25), 0);
  expectClose(oz, std::vector<double>(4 * 64, 1.25), 0);
}

INSTANTIATE_TEST_SUITE_P(Sources, CorpusKernels,
                         ::testing::Values("mlir", "tile"),
                         [](const auto &info) { return info.param; });

} // namespace
