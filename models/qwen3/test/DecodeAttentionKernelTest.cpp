//===- DecodeAttentionKernelTest.cpp - decode attention vs fp64 ------------===//
//
// The decode step's attention, launched directly as the engine launches it:
// decode_attention (program per query head and share of the cache, the
// query's QK-norm and RoPE inside, the token's own key and value taken from
// the QKV row) or grouped_decode_attention (program per KV head and share,
// scores and P V on tensor cores, the last share the token's own key and
// value). decode_attention merges its shares itself (the last share of
// each head, tile.join; it is launched twice, so the second launch finds
// the ticket counters back at 0); grouped_decode_attention is followed by
// attention_merge_kv_write (the shares combined, the token's key and value
// written to the caches). After decode_attention the output projection
// writes the token's key and value (gemv_residual_kv, LinearKernelTest).
// Contexts long enough that
// every share walks several key blocks and
// a last block that is partial; cache rows from the token's position on
// hold large values that must not count. The output must agree with fp64
// softmax(q k^T * scale) v on the rounded, normalized and rotated inputs,
// every output element must be written, and the cache rows at the
// position must hold the token's key and value.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace tile_runtime;

namespace {

struct Case {
  const char *dtype;
  int64_t group, kvHeads, position, splits;
  bool grouped; ///< grouped_decode_attention, else decode_attention
};

// What ctest lists as the parameter.
void PrintTo(const Case &c, std::ostream *os) {
  *os << (c.grouped ? "grouped_decode_attention, " : "decode_attention, ") << c.dtype
      << ", group " << c.group << ", " << c.kvHeads << " KV heads, position " << c.position
      << ", S = " << c.splits;
}

class DecodeAttentionKernel : public ::testing::TestWithParam<Case> {};

TEST_P(DecodeAttentionKernel, MatchesFp64ReferenceAndWritesTheToken) {
  const Case c = GetParam();
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(c.dtype);
  auto encode = ht.encode;
  auto decode = ht.decode;
  const double eps = ht.eps;
  const DType type = ht.type;
  constexpr int64_t HD = 128, maxSeq = 2048;
  const int64_t heads = c.group * c.kvHeads, nq = heads * HD;
  const int64_t nqkv = nq + 2 * c.kvHeads * HD, p0 = c.position, S = c.splits;
  const float scale = 1.0f / std::sqrt(float(HD)), normEps = 1e-6f;

  // The tier of the kernel table with this family and S.
  qwen3::kernels::AttentionTier tier;
  for (const qwen3::kernels::AttentionTier &t : qwen3::kernels::decodeAttentionTiers(c.group, HD))
    if (t.grouped == c.grouped && t.splits == S)
      tier = t;
  ASSERT_EQ(tier.splits, S) << "the kernel table has no such tier";
  qwen3::test::KernelUnderTest attn;
  ASSERT_NO_FATAL_FAILURE(attn.open(c.dtype, tier.attn.name()));
  Kernel merge;
  Status st = Status::ok();
  if (c.grouped) {
    st = attn.module.kernel(tier.merge.name(), merge);
    ASSERT_TRUE(st.isOk()) << st.message();
  }

  std::mt19937 gen(5 + p0);
  std::uniform_real_distribution<float> dist(-1.5f, 1.5f);
  std::uniform_real_distribution<float> wdist(0.5f, 1.5f);
  auto random = [&](size_t n, std::uniform_real_distribution<float> &d) {
    std::vector<uint16_t> v(n);
    for (uint16_t &e : v)
      e = encode(d(gen));
    return v;
  };
  std::vector<uint16_t> qkv = random(nqkv, dist), qw = random(HD, wdist), kw = random(HD, wdist);
  std::vector<uint16_t> kc = random(maxSeq * c.kvHeads * HD, dist);
  std::vector<uint16_t> vc = random(maxSeq * c.kvHeads * HD, dist);
  // Rows from the position on are not the context: large, so counting
  // one shows.
  for (int64_t r = p0; r < maxSeq; ++r)
    for (int64_t i = 0; i < c.kvHeads * HD; ++i)
      kc[r * c.kvHeads * HD + i] = vc[r * c.kvHeads * HD + i] = encode(30.0f);
  std::vector<float> invFreq(HD / 2);
  for (int64_t i = 0; i < HD / 2; ++i)
    invFreq[i] = float(1.0 / std::pow(1e6, 2.0 * i / HD));
  std::vector<uint16_t> o(nq, qwen3::test::kPoison);
  int32_t pos = static_cast<int32_t>(p0);

  Stream &stream = attn.device->defaultStream();
  Buffer bqkv = attn.upload(type, qkv.data(), nqkv, 2);
  Buffer bqw = attn.upload(type, qw.data(), HD, 2), bkw = attn.upload(type, kw.data(), HD, 2);
  Buffer bf = attn.upload(DType::F32, invFreq.data(), HD / 2, 4);
  Buffer bk = attn.upload(type, kc.data(), kc.size(), 2);
  Buffer bv = attn.upload(type, vc.data(), vc.size(), 2);
  Buffer bpos = attn.upload(DType::I32, &pos, 1, 4);
  Buffer bo = attn.upload(type, o.data(), nq, 2);
  Buffer bpo, bplse, btickets;
  ASSERT_TRUE(attn.device->allocate(DType::F32, heads * S * HD, stream, bpo).isOk());
  ASSERT_TRUE(attn.device->allocate(DType::F32, heads * S, stream, bplse).isOk());
  ASSERT_TRUE(attn.device->allocate(DType::I32, heads, stream, btickets).isOk());
  ASSERT_TRUE(stream.fill(btickets, 0).isOk());
  if (c.grouped) {
    st = stream.launch(
        attn.kernel, {Arg::in(bqkv, {1, nqkv}), Arg::in(bqw, {HD}), Arg::in(bkw, {HD}),
                      Arg::in(bf, {HD / 2}), Arg::in(bk, {maxSeq, c.kvHeads, HD}),
                      Arg::in(bv, {maxSeq, c.kvHeads, HD}), Arg::in(bpos, {1}),
                      Arg::out(bpo, {heads, S, HD}), Arg::out(bplse, {heads, S}),
                      Arg::real(scale), Arg::real(normEps)});
    ASSERT_TRUE(st.isOk()) << st.message();
    st = stream.launch(merge,
                       {Arg::in(bpo, {heads, S, HD}), Arg::in(bplse, {heads, S}),
                        Arg::out(bo, {1, nq}), Arg::in(bqkv, {1, nqkv}), Arg::in(bkw, {HD}),
                        Arg::in(bf, {HD / 2}), Arg::in(bpos, {1}),
                        Arg::inout(bk, {maxSeq, c.kvHeads, HD}),
                        Arg::inout(bv, {maxSeq, c.kvHeads, HD}), Arg::real(normEps)});
    ASSERT_TRUE(st.isOk()) << st.message();
  } else {
    for (int launch = 0; launch < 2; ++launch) {
      // The second launch's output alone is checked: poisoned again.
      ASSERT_TRUE(stream.copyToDevice(bo, o.data(), nq * 2).isOk());
      st = stream.launch(
          attn.kernel, {Arg::in(bqkv, {1, nqkv}), Arg::in(bqw, {HD}), Arg::in(bkw, {HD}),
                        Arg::in(bf, {HD / 2}), Arg::in(bk, {maxSeq, c.kvHeads, HD}),
                        Arg::in(bv, {maxSeq, c.kvHeads, HD}), Arg::in(bpos, {1}),
                        Arg::inout(bpo, {heads, HD, S}), Arg::inout(bplse, {heads, S}),
                        Arg::out(bo, {1, nq}), Arg::ticket(btickets, {heads}),
                        Arg::real(scale), Arg::real(normEps)});
      ASSERT_TRUE(st.isOk()) << st.message();
    }
    std::vector<int32_t> tickets(heads, -1);
    ASSERT_TRUE(stream.copyToHost(tickets.data(), btickets, heads * 4).isOk());
    ASSERT_TRUE(stream.synchronize().isOk());
    for (int64_t h = 0; h < heads; ++h)
      ASSERT_EQ(tickets[h], 0) << "head " << h << "'s ticket counter after the launches";
  }
  std::vector<uint16_t> kAfter(kc.size()), vAfter(vc.size());
  ASSERT_TRUE(stream.copyToHost(o.data(), bo, nq * 2).isOk());
  ASSERT_TRUE(stream.copyToHost(kAfter.data(), bk, kc.size() * 2).isOk());
  ASSERT_TRUE(stream.copyToHost(vAfter.data(), bv, vc.size() * 2).isOk());
  ASSERT_TRUE(stream.synchronize().isOk());

  // QK-norm then RoPE at the position, rounded where rope.tile rounds.
  auto normRope = [&](const uint16_t *x, const std::vector<uint16_t> &w) {
    return qwen3::test::normRopeReference(ht, x, w.data(), invFreq, p0, normEps);
  };

  double errSq = 0, refSq = 0;
  std::vector<double> p(p0 + 1), ref(HD);
  for (int64_t kvh = 0; kvh < c.kvHeads; ++kvh) {
    const std::vector<double> kn = normRope(&qkv[nq + kvh * HD], kw);
    const uint16_t *vn = &qkv[nq + c.kvHeads * HD + kvh * HD];
    // The grouped attention's merge wrote the token's key and value at its
    // position. The key
    // is a sum of two rounded products of magnitude up to about 2 (cos and
    // sin rounded from f32 here, from f64 in the reference, may differ in
    // the last place): a few units of the type's rounding at that scale,
    // however small the sum.
    for (int64_t d = 0; d < HD && c.grouped; ++d) {
      const int64_t at = (p0 * c.kvHeads + kvh) * HD + d;
      ASSERT_LE(std::abs(decode(kAfter[at]) - kn[d]), 2 * eps * (std::abs(kn[d]) + 1.0))
          << c.dtype << ": key cache row " << p0 << ", KV head " << kvh << ", dim " << d;
      ASSERT_EQ(vAfter[at], vn[d]) << c.dtype << ": value cache row " << p0 << ", dim " << d;
    }
    for (int64_t g = 0; g < c.group; ++g) {
      const int64_t h = kvh * c.group + g;
      const std::vector<double> qn = normRope(&qkv[h * HD], qw);
      double mx = -INFINITY;
      for (int64_t j = 0; j <= p0; ++j) {
        double s = 0;
        for (int64_t d = 0; d < HD; ++d)
          s += qn[d] * (j < p0 ? decode(kc[(j * c.kvHeads + kvh) * HD + d]) : kn[d]);
        p[j] = s * scale;
        mx = std::max(mx, p[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j <= p0; ++j)
        sum += (p[j] = std::exp(p[j] - mx));
      std::fill(ref.begin(), ref.end(), 0.0);
      for (int64_t j = 0; j <= p0; ++j)
        for (int64_t d = 0; d < HD; ++d)
          ref[d] += p[j] / sum *
                    decode(j < p0 ? vc[(j * c.kvHeads + kvh) * HD + d] : vn[d]);
      for (int64_t d = 0; d < HD; ++d) {
        const float got = decode(o[h * HD + d]);
        ASSERT_FALSE(std::isnan(got)) << c.dtype << ": o[" << h * HD + d << "] was not written";
        const double err = std::abs(got - ref[d]);
        // f32 scores and softmax, the probabilities rounded to the type
        // for P V (as Hugging Face rounds them), the output rounded once:
        // within a few units of the type's rounding of values of
        // magnitude <= 1.5.
        ASSERT_LE(err, 4 * eps) << c.dtype << ": o[" << h * HD + d << "] = " << got
                                << ", reference " << ref[d];
        errSq += err * err;
        refSq += ref[d] * ref[d];
      }
    }
  }
  EXPECT_LE(std::sqrt(errSq / refSq), eps) << c.dtype;
}

// Both kernels at 700 cached rows (22 blocks of 32, the last partial: two
// blocks per share of 16), 1601 (51 blocks: four per share, the last share
// short) at both split counts, and a context shorter than one block per
// share; decode_attention also at 8 shares of 200 and 250 rows (one block
// each, the last partial: the engine's choice below 256 positions); the
// grouped one also at 1000 rows with 31 shares (the last block partial,
// some shares empty) and an odd number of KV heads, and at 2000 rows with
// 48 shares (63 blocks: two per share, the last share one, fifteen empty);
// then the other groups the kernel table has, in both families.
INSTANTIATE_TEST_SUITE_P(
    Contexts, DecodeAttentionKernel,
    ::testing::Values(Case{"bf16", 4, 2, 700, 16, false}, Case{"f16", 4, 2, 700, 16, false},
                      Case{"f16", 8, 1, 1601, 16, false}, Case{"bf16", 2, 2, 1601, 32, false},
                      Case{"f16", 4, 2, 45, 16, false}, Case{"f16", 4, 2, 200, 8, false},
                      Case{"bf16", 2, 2, 250, 8, false}, Case{"bf16", 4, 2, 700, 16, true},
                      Case{"f16", 4, 2, 700, 16, true}, Case{"f16", 8, 1, 1601, 16, true},
                      Case{"bf16", 2, 2, 1601, 32, true}, Case{"f16", 4, 2, 45, 16, true},
                      Case{"bf16", 2, 3, 1000, 32, true}, Case{"f16", 4, 2, 2000, 48, true},
                      Case{"bf16", 8, 1, 2000, 48, true},
                      // The other GQA groups: Qwen3-14B's 5, and 1, 3 and 16.
                      Case{"bf16", 5, 2, 700, 16, false}, Case{"f16", 1, 3, 1601, 32, false},
                      Case{"bf16", 3, 2, 200, 8, false}, Case{"f16", 16, 1, 700, 16, false},
                      Case{"bf16", 5, 2, 1601, 48, true}, Case{"f16", 1, 3, 700, 16, true},
                      Case{"bf16", 16, 1, 1000, 32, true}, Case{"f16", 3, 2, 45, 16, true}),
    [](const ::testing::TestParamInfo<Case> &info) {
      const Case &c = info.param;
      return std::string(c.grouped ? "grouped_" : "") + c.dtype + "_G" +
             std::to_string(c.group) + "_pos" + std::to_string(c.position) + "_S" +
             std::to_string(c.splits);
    });

} // namespace
