//===- RopeKernelTest.cpp - the prompt's RoPE kernels ---------------------===//
//
// rope.tile's prompt kernels launched directly: rope_table (the cos and sin
// rows of a prompt's positions) against fp64, and the query and key
// kernels that read those rows (q_norm_rope_from_table,
// kv_norm_rope_write_rows, and the batched step's qkv_norm_rope_write_pages)
// against the fp64 QK-norm + RoPE reference. 37
// tokens (a second, partial tile of 16 rows) at position 1000 (a prompt
// continuing a cache; angles far from zero).
// Outputs are poisoned, with poisoned rows past their views that must stay
// so; cache rows outside the prompt's must stay poisoned.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tile_runtime;

namespace {

constexpr int64_t kHD = 128, kTokens = 37, kPos = 1000, kGuard = 8;
constexpr int64_t kHeads = 4, kKvHeads = 2, kCacheRows = kPos + kTokens + 5;
constexpr int64_t kQkvCols = (kHeads + 2 * kKvHeads) * kHD;
constexpr double kNormEps = 1e-6;

/// Hugging Face's default RoPE frequencies at theta 1e6, in f32.
std::vector<float> inverseFrequencies() {
  std::vector<float> invf(kHD / 2);
  for (int64_t i = 0; i < kHD / 2; ++i)
    invf[i] =
        static_cast<float>(1.0 / std::pow(1e6, double(2 * i) / double(kHD)));
  return invf;
}

/// One dtype's kernels on the test device, with the inputs they share.
struct RopeFixture {
  qwen3::test::HalfType ht;
  qwen3::test::KernelUnderTest kut; ///< the device, its module and rope_table
  Kernel qFromTable, kvRows;
  std::vector<uint16_t> qkv, qw, kw;
  std::vector<float> invf = inverseFrequencies();
  Buffer bqkv, bqw, bkw, binvf, bpos;

  void open(const std::string &dtype) {
    ht = qwen3::test::HalfType::of(dtype);
    const std::string hd = "__HD_" + std::to_string(kHD);
    ASSERT_NO_FATAL_FAILURE(kut.open(dtype, "rope_table" + hd));
    for (auto [name, kernel] :
         {std::pair{"q_norm_rope_from_table", &qFromTable},
          std::pair{"kv_norm_rope_write_rows", &kvRows}}) {
      Status st = kut.module.kernel(name + hd, *kernel);
      ASSERT_TRUE(st.isOk()) << st.message();
    }
    std::mt19937 gen(29);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    qkv.resize(kTokens * kQkvCols);
    for (uint16_t &e : qkv)
      e = ht.encode(dist(gen));
    for (std::vector<uint16_t> *w : {&qw, &kw}) {
      w->resize(kHD);
      for (uint16_t &e : *w)
        e = ht.encode(0.5f + 0.5f * std::fabs(dist(gen)));
    }
    bqkv = upload(qkv);
    bqw = upload(qw);
    bkw = upload(kw);
    binvf = kut.upload(DType::F32, invf.data(), kHD / 2, 4);
    const int32_t pos = kPos;
    bpos = kut.upload(DType::I32, &pos, 1, 4);
  }

  Buffer upload(const std::vector<uint16_t> &v) {
    return kut.upload(ht.type, v.data(), static_cast<int64_t>(v.size()), 2);
  }
  Buffer poisoned(int64_t count) {
    return upload(std::vector<uint16_t>(count, qwen3::test::kPoison));
  }

  Stream &stream() { return kut.device->defaultStream(); }

  std::vector<uint16_t> download(const Buffer &b, int64_t count) {
    std::vector<uint16_t> out(count);
    EXPECT_TRUE(stream().copyToHost(out.data(), b, count * 2).isOk());
    EXPECT_TRUE(stream().synchronize().isOk());
    return out;
  }

  /// The cos and sin rows of the prompt's positions, each with kGuard
  /// poisoned rows past the view.
  void makeTable(Buffer &cosRows, Buffer &sinRows) {
    cosRows = poisoned((kTokens + kGuard) * kHD);
    sinRows = poisoned((kTokens + kGuard) * kHD);
    Status st = stream().launch(kut.kernel,
                                {Arg::in(binvf, {kHD / 2}), Arg::in(bpos, {1}),
                                 Arg::out(cosRows, {kTokens, kHD}),
                                 Arg::out(sinRows, {kTokens, kHD})});
    ASSERT_TRUE(st.isOk()) << st.message();
  }
};

class PromptRopeKernel : public ::testing::TestWithParam<const char *> {};

// Every row, both halves: cos and sin of the f32 angle inv_freq * (pos +
// t), rounded to the type, sin negated in the first half (rotate-half's
// sign); the f32 cos/sin may land on the neighbouring value of the type.
TEST_P(PromptRopeKernel, TableHoldsTheRoundedCosAndSignedSinOfEachPosition) {
  RopeFixture k;
  ASSERT_NO_FATAL_FAILURE(k.open(GetParam()));
  Buffer cosRows, sinRows;
  ASSERT_NO_FATAL_FAILURE(k.makeTable(cosRows, sinRows));
  const int64_t n = (kTokens + kGuard) * kHD;
  std::vector<uint16_t> c = k.download(cosRows, n), s = k.download(sinRows, n);
  auto round = [&](double v) {
    return double(k.ht.decode(k.ht.encode(float(v))));
  };
  for (int64_t t = 0; t < kTokens; ++t)
    for (int64_t d = 0; d < kHD; ++d) {
      const float angle = k.invf[d % (kHD / 2)] * static_cast<float>(kPos + t);
      const double wantCos = round(std::cos(double(angle)));
      const double wantSin =
          (d < kHD / 2 ? -1 : 1) * round(std::sin(double(angle)));
      const double gotCos = k.ht.decode(c[t * kHD + d]),
                   gotSin = k.ht.decode(s[t * kHD + d]);
      ASSERT_LE(std::fabs(gotCos - wantCos),
                k.ht.eps * std::fabs(wantCos) + 1e-6)
          << "cos row " << t << ", dim " << d;
      ASSERT_LE(std::fabs(gotSin - wantSin),
                k.ht.eps * std::fabs(wantSin) + 1e-6)
          << "sin row " << t << ", dim " << d;
      if (d >= kHD / 2) {
        ASSERT_EQ(c[t * kHD + d], c[t * kHD + d - kHD / 2])
            << "cos row " << t << ", dim " << d;
        ASSERT_EQ(s[t * kHD + d], s[t * kHD + d - kHD / 2] ^ 0x8000)
            << "sin row " << t << ", dim " << d;
      }
    }
  for (int64_t e = kTokens * kHD; e < n; ++e) {
    ASSERT_EQ(c[e], qwen3::test::kPoison)
        << "cos element " << e - kTokens * kHD << " past the view";
    ASSERT_EQ(s[e], qwen3::test::kPoison)
        << "sin element " << e - kTokens * kHD << " past the view";
  }
}

// The query heads from the table's rows: within two units of the type of
// fp64; rows past the view untouched.
TEST_P(PromptRopeKernel, QueryFromTableMatchesFp64) {
  RopeFixture k;
  ASSERT_NO_FATAL_FAILURE(k.open(GetParam()));
  Buffer cosRows, sinRows;
  ASSERT_NO_FATAL_FAILURE(k.makeTable(cosRows, sinRows));
  const int64_t nq = kHeads * kHD, n = (kTokens + kGuard) * nq;
  Buffer fromTable = k.poisoned(n);
  const float eps = static_cast<float>(kNormEps);
  Status st = k.stream().launch(
      k.qFromTable,
      {Arg::in(k.bqkv, {kTokens, kQkvCols}), Arg::in(k.bqw, {kHD}),
       Arg::in(cosRows, {kTokens, kHD}), Arg::in(sinRows, {kTokens, kHD}),
       Arg::out(fromTable, {kTokens, nq}), Arg::real(eps)});
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<uint16_t> got = k.download(fromTable, n);
  for (int64_t t = 0; t < kTokens; ++t)
    for (int64_t h = 0; h < kHeads; ++h) {
      const std::vector<double> ref = qwen3::test::normRopeReference(
          k.ht, &k.qkv[t * kQkvCols + h * kHD], k.qw.data(), k.invf, kPos + t,
          kNormEps);
      for (int64_t d = 0; d < kHD; ++d) {
        const int64_t at = t * nq + h * kHD + d;
        ASSERT_LE(std::fabs(k.ht.decode(got[at]) - ref[d]),
                  2 * k.ht.eps * (std::fabs(ref[d]) + 1.0))
            << "token " << t << ", head " << h << ", dim " << d;
      }
    }
  for (int64_t e = kTokens * nq; e < n; ++e)
    ASSERT_EQ(got[e], qwen3::test::kPoison)
        << "element " << e - kTokens * nq << " past the view";
}

// The key and value rows written into the caches at pos .. pos + T - 1 by
// kv_norm_rope_write_rows (16 tokens a program, whole tiles of cache views
// that start at pos; the second tile partial): the keys within two units
// of the type of fp64, the values copied; every other cache row untouched.
TEST_P(PromptRopeKernel, KeyValueRowsFromTableMatchFp64) {
  RopeFixture k;
  ASSERT_NO_FATAL_FAILURE(k.open(GetParam()));
  Buffer cosRows, sinRows;
  ASSERT_NO_FATAL_FAILURE(k.makeTable(cosRows, sinRows));
  const int64_t n = kCacheRows * kKvHeads * kHD;
  Buffer caches[2];
  for (Buffer &b : caches)
    b = k.poisoned(n);
  const float eps = static_cast<float>(kNormEps);
  // The rows kernel takes the caches from the prompt's first row.
  auto promptRows = [&](const Buffer &b) {
    return Arg::out(b, {kTokens, kKvHeads, kHD}, {}, kPos * kKvHeads * kHD);
  };
  Status st = k.stream().launch(
      k.kvRows, {Arg::in(k.bqkv, {kTokens, kQkvCols}), Arg::in(k.bkw, {kHD}),
                 Arg::in(cosRows, {kTokens, kHD}),
                 Arg::in(sinRows, {kTokens, kHD}), promptRows(caches[0]),
                 promptRows(caches[1]), Arg::integer(kHeads), Arg::real(eps)});
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<uint16_t> kc = k.download(caches[0], n),
                        vc = k.download(caches[1], n);
  for (int64_t r = 0; r < kCacheRows; ++r)
    for (int64_t h = 0; h < kKvHeads; ++h) {
      const int64_t t = r - kPos;
      const bool written = t >= 0 && t < kTokens;
      std::vector<double> ref;
      if (written)
        ref = qwen3::test::normRopeReference(
            k.ht, &k.qkv[t * kQkvCols + (kHeads + h) * kHD], k.kw.data(),
            k.invf, r, kNormEps);
      for (int64_t d = 0; d < kHD; ++d) {
        const int64_t at = (r * kKvHeads + h) * kHD + d;
        if (!written) {
          ASSERT_EQ(kc[at], qwen3::test::kPoison)
              << "key row " << r << " written";
          ASSERT_EQ(vc[at], qwen3::test::kPoison)
              << "value row " << r << " written";
          continue;
        }
        ASSERT_EQ(vc[at],
                  k.qkv[t * kQkvCols + (kHeads + kKvHeads + h) * kHD + d])
            << "value row " << r << ", head " << h << ", dim " << d;
        ASSERT_LE(std::fabs(k.ht.decode(kc[at]) - ref[d]),
                  2 * k.ht.eps * (std::fabs(ref[d]) + 1.0))
            << "key row " << r << ", head " << h << ", dim " << d;
      }
    }
}

// The batched step's qkv_norm_rope_write_pages: every row's query heads,
// and the keys and values of the first kWriters rows at row pos % PG of
// their pages (wp, distinct and out of order); a negative position (a
// bucket's padding row) writes nothing, nor do the rows past kWriters (a
// mixed step's prompt rows). Keys and queries within two units of the type
// of fp64, values copied; every other cache row and the q rows past the
// view stay poisoned.
TEST_P(PromptRopeKernel, BatchedStepHeadsIntoPagesMatchFp64) {
  RopeFixture k;
  ASSERT_NO_FATAL_FAILURE(k.open(GetParam()));
  Buffer cosRows, sinRows;
  ASSERT_NO_FATAL_FAILURE(k.makeTable(cosRows, sinRows));
  constexpr int64_t kPG = 64, kWriters = 20, kPages = 23, kPadding = 3;
  Kernel fused;
  Status st = k.kut.module.kernel("qkv_norm_rope_write_pages__HD_" + std::to_string(kHD), fused);
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<int32_t> pos(kWriters), wp(kWriters);
  for (int64_t b = 0; b < kWriters; ++b) {
    pos[b] = b == kPadding ? -1 : static_cast<int32_t>(kPos + b);
    wp[b] = static_cast<int32_t>((b * 7 + 1) % kPages);
  }
  Buffer bpos = k.kut.upload(DType::I32, pos.data(), kWriters, 4);
  Buffer bwp = k.kut.upload(DType::I32, wp.data(), kWriters, 4);
  ASSERT_TRUE(k.stream().freeze(bwp).isOk());
  const int64_t nq = kHeads * kHD, nQ = (kTokens + kGuard) * nq;
  const int64_t nCache = kPages * kPG * kKvHeads * kHD;
  Buffer q = k.poisoned(nQ), caches[2] = {k.poisoned(nCache), k.poisoned(nCache)};
  auto pages = [&](const Buffer &b) { return Arg::inout(b, {kPages, kPG, kKvHeads, kHD}); };
  st = k.stream().launch(
      fused, {Arg::in(k.bqkv, {kTokens, kQkvCols}), Arg::in(k.bqw, {kHD}), Arg::in(k.bkw, {kHD}),
              Arg::in(cosRows, {kTokens, kHD}), Arg::in(sinRows, {kTokens, kHD}),
              Arg::in(bpos, {kWriters}), Arg::in(bwp, {kWriters}), Arg::out(q, {kTokens, nq}),
              pages(caches[0]), pages(caches[1]), Arg::real(static_cast<float>(kNormEps))});
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<uint16_t> gotQ = k.download(q, nQ), kc = k.download(caches[0], nCache),
                        vc = k.download(caches[1], nCache);
  auto near = [&](uint16_t got, double want) {
    return std::fabs(k.ht.decode(got) - want) <= 2 * k.ht.eps * (std::fabs(want) + 1.0);
  };
  for (int64_t t = 0; t < kTokens; ++t)
    for (int64_t h = 0; h < kHeads; ++h) {
      const std::vector<double> ref = qwen3::test::normRopeReference(
          k.ht, &k.qkv[t * kQkvCols + h * kHD], k.qw.data(), k.invf, kPos + t, kNormEps);
      for (int64_t d = 0; d < kHD; ++d)
        ASSERT_TRUE(near(gotQ[t * nq + h * kHD + d], ref[d]))
            << "query row " << t << ", head " << h << ", dim " << d;
    }
  for (int64_t e = kTokens * nq; e < nQ; ++e)
    ASSERT_EQ(gotQ[e], qwen3::test::kPoison) << "q element " << e - kTokens * nq << " past the view";
  std::vector<bool> written(nCache, false);
  for (int64_t b = 0; b < kWriters; ++b) {
    if (pos[b] < 0)
      continue;
    for (int64_t h = 0; h < kKvHeads; ++h) {
      const std::vector<double> ref = qwen3::test::normRopeReference(
          k.ht, &k.qkv[b * kQkvCols + (kHeads + h) * kHD], k.kw.data(), k.invf, pos[b], kNormEps);
      for (int64_t d = 0; d < kHD; ++d) {
        const int64_t at = ((wp[b] * kPG + pos[b] % kPG) * kKvHeads + h) * kHD + d;
        written[at] = true;
        ASSERT_TRUE(near(kc[at], ref[d])) << "key of row " << b << ", head " << h << ", dim " << d;
        ASSERT_EQ(vc[at], k.qkv[b * kQkvCols + (kHeads + kKvHeads + h) * kHD + d])
            << "value of row " << b << ", head " << h << ", dim " << d;
      }
    }
  }
  for (int64_t e = 0; e < nCache; ++e)
    if (!written[e]) {
      ASSERT_EQ(kc[e], qwen3::test::kPoison) << "key cache element " << e << " written";
      ASSERT_EQ(vc[e], qwen3::test::kPoison) << "value cache element " << e << " written";
    }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, PromptRopeKernel, ::testing::Values("bf16", "f16"),
                         [](const auto &info) { return std::string(info.param); });

} // namespace
