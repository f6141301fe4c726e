//===- LinearKernelTest.cpp - the linear kernels vs an fp64 reference -----===//
//
// The Qwen3 kernel set's decode GEMVs, launched directly: the plain GEMV
// (the LM head, at two and at four rows per program), gemv_rms (the norm
// from a sum of squares another launch added up), gemv_residual (the
// residual add in the epilogue, adding the squares of what it writes to
// that sum), gemv_swiglu (the norm as gemv_rms, SwiGLU in the epilogue)
// and gemv_residual_kv (gemv_residual plus programs writing the token's K/V
// cache row: the value row copied, the key row normalized and rotated as
// an fp64 reference does, the rest of the caches untouched), each at every
// K-step group U the
// engine loads (WHOLE = 1, K spanning two groups so both the unrolled
// group and the loop over groups run) and in its general instance at a K
// and N that are not multiples of the tile. Outputs are poisoned first and
// must be written (gemv_residual's h starts random and must move by the
// product), and must agree with fp64 from the rounded inputs. A K that is
// not a whole number of groups is a launch-contract refusal. The tiny test
// model only reaches the general instances, so this is the grouped ones'
// CPU coverage; with QWEN3_TEST_DEVICE=cuda the same test runs on the GPU.
// gemm_swiglu (the prompt's gate/up GEMM with SwiGLU in its epilogue)
// against fp64 at partial tiles. fold_norm_weight, which prepares the
// weights gemv_rms expects, must be exact (the f32 product of two 16-bit floats is exact, then one rounding).
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace tile_runtime;

namespace {

// The kernel table's decode GEMV families.
using Family = qwen3::kernels::Gemv;

const char *familyName(Family f) {
  switch (f) {
  case Family::Plain:
    return "gemv";
  case Family::FourRows:
    return "gemv__R_4";
  case Family::Rms:
    return "gemv_rms";
  case Family::Residual:
    return "gemv_residual";
  case Family::Swiglu:
    return "gemv_swiglu";
  case Family::ResidualKv:
    return "gemv_residual_kv";
  }
  return "?";
}

struct Case {
  const char *dtype;
  Family family;
  int64_t group; // U: K steps of 512 per unrolled group; 0: the general instance
};

qwen3::kernels::GemvInstances tableInstances(const Case &c) {
  const auto dt = std::string(c.dtype) == "f16" ? qwen3::KernelDType::F16
                                                : qwen3::KernelDType::BF16;
  return qwen3::kernels::gemv(c.family, 128, dt);
}

// The instance the engine would launch: the kernel table's, by U (0: the
// general one).
std::string instanceName(const Case &c) {
  const qwen3::kernels::GemvInstances g = tableInstances(c);
  if (c.group == 0)
    return g.general.name();
  for (const auto &[u, inst] : g.whole)
    if (u == c.group)
      return inst.name();
  return "(no U = " + std::to_string(c.group) + " instance)";
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  const Case &c = info.param;
  return std::string(familyName(c.family)) +
         (c.group ? "_U" + std::to_string(c.group) : std::string("_general")) + "_" +
         c.dtype;
}

// What ctest lists as the parameter: the same words as the test's name.
void PrintTo(const Case &c, std::ostream *os) {
  *os << caseName(::testing::TestParamInfo<Case>(c, 0));
}

class DecodeGemvKernel : public ::testing::TestWithParam<Case> {};

TEST_P(DecodeGemvKernel, MatchesFp64ReferenceAndRefusesPartialGroups) {
  const Case c = GetParam();
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(c.dtype);
  auto encode = ht.encode;
  auto decode = ht.decode;
  const double eps = ht.eps;
  const bool swiglu = c.family == Family::Swiglu;
  // Both normalize x by the sum of squares they are handed.
  const bool rms = c.family == Family::Rms || swiglu;
  const bool kv = c.family == Family::ResidualKv;
  const bool residual = c.family == Family::Residual || kv;
  // Two groups of U steps (one for U = 19, which only 4B's 9728 uses); the
  // general instance at a K and an N off the tile.
  // (gemv_residual_kv's x is whole heads of 128.)
  const int64_t K = c.group == 0 ? 2 * 512 + (kv ? 128 : 40)
                                 : 512 * c.group * (c.group == 19 ? 1 : 2);
  const int64_t rows = c.group == 0 ? 13 : 12;  // outputs (R = 2 or 4 rows per program)
  const int64_t N = swiglu ? 2 * rows : rows;   // rows of w
  const float normEps = 1e-6f;

  const std::string name = instanceName(c);
  qwen3::test::KernelUnderTest kut;
  ASSERT_NO_FATAL_FAILURE(kut.open(c.dtype, name));

  // Products of a few hundredths summed over K: outputs of order 1 (for
  // the norms, x of mean square 3: the normalization matters).
  std::mt19937 gen(11 + c.group + 100 * static_cast<int>(c.family));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const float xs = rms ? 3.0f : 3.0f / std::sqrt(float(K));
  const float ws = rms ? 1.0f / std::sqrt(float(K)) : 1.0f;
  std::vector<uint16_t> x(K), w(N * K), y(rows, qwen3::test::kPoison);
  for (uint16_t &e : x)
    e = encode(dist(gen) * xs);
  for (uint16_t &e : w)
    e = encode(dist(gen) * ws);
  std::vector<uint16_t> h0(rows);
  if (residual)
    for (uint16_t &e : y)
      e = encode(dist(gen) * 4);
  h0 = y;

  Stream &stream = kut.device->defaultStream();
  auto upload = [&](const std::vector<uint16_t> &v) {
    return kut.upload(ht.type, v.data(), static_cast<int64_t>(v.size()), 2);
  };
  Buffer bx = upload(x), bw = upload(w), by = upload(y);
  // The norm's sum of squares (gemv_rms, gemv_swiglu read it), or the sum
  // gemv_residual adds its outputs' squares to (from 0.5: adds accumulate).
  double sumSq = 0;
  for (int64_t k = 0; k < K; ++k)
    sumSq += double(decode(x[k])) * decode(x[k]);
  const float ssStart = residual ? 0.5f : static_cast<float>(sumSq);
  Buffer bss = kut.upload(DType::F32, &ssStart, 1, 4);
  // gemv_residual_kv's cache write: one KV head of 128 dims after K query
  // dims in the QKV row, the token at row 5 of 8, the caches poisoned.
  constexpr int64_t HD = 128, cacheRows = 8;
  const int32_t pos = 5;
  std::vector<uint16_t> qkv(K + 2 * HD), kw(HD), cache(cacheRows * HD, qwen3::test::kPoison);
  for (uint16_t &e : qkv)
    e = encode(dist(gen));
  for (uint16_t &e : kw)
    e = encode(1.0f + dist(gen) / 4);
  std::vector<float> invFreq(HD / 2);
  for (int64_t i = 0; i < HD / 2; ++i)
    invFreq[i] = float(1.0 / std::pow(1e6, 2.0 * i / HD));
  Buffer bqkv = upload(qkv), bkw = upload(kw), bkc = upload(cache), bvc = upload(cache);
  Buffer bf = kut.upload(DType::F32, invFreq.data(), HD / 2, 4);
  Buffer bpos = kut.upload(DType::I32, &pos, 1, 4);
  auto launch = [&](int64_t k) {
    switch (c.family) {
    case Family::Plain:
    case Family::FourRows:
      return stream.launch(kut.kernel, {Arg::in(bx, {1, k}), Arg::in(bw, {N, k}),
                                       Arg::out(by, {1, rows})});
    case Family::Rms:
      return stream.launch(kut.kernel, {Arg::in(bx, {1, k}), Arg::in(bw, {N, k}),
                                       Arg::out(by, {1, rows}), Arg::in(bss, {1}),
                                       Arg::real(normEps)});
    case Family::Residual:
      return stream.launch(kut.kernel, {Arg::in(bx, {1, k}), Arg::in(bw, {N, k}),
                                       Arg::inout(by, {1, rows}), Arg::add(bss, {1})});
    case Family::Swiglu:
      return stream.launch(kut.kernel, {Arg::in(bx, {1, 1, k}), Arg::in(bw, {2, rows, k}),
                                       Arg::out(by, {1, rows}), Arg::in(bss, {1}),
                                       Arg::real(normEps)});
    case Family::ResidualKv:
      return stream.launch(
          kut.kernel, {Arg::in(bx, {1, k}), Arg::in(bw, {N, k}), Arg::inout(by, {1, rows}),
                       Arg::add(bss, {1}), Arg::in(bqkv, {1, k + 2 * HD}), Arg::in(bkw, {HD}),
                       Arg::in(bf, {HD / 2}), Arg::in(bpos, {1}),
                       Arg::inout(bkc, {cacheRows, 1, HD}), Arg::inout(bvc, {cacheRows, 1, HD}),
                       Arg::real(normEps)});
    }
    return Status::error("unknown family");
  };
  // W is a weight (`frozen`): refused until its buffer is frozen.
  Status unfrozen = launch(K);
  ASSERT_FALSE(unfrozen.isOk());
  ASSERT_NE(unfrozen.message().find("argument w (#1) is frozen"), std::string::npos)
      << unfrozen.message();
  ASSERT_TRUE(stream.freeze(bw).isOk());
  Status st = launch(K);
  ASSERT_TRUE(st.isOk()) << st.message();
  st = stream.copyToHost(y.data(), by, y.size() * 2);
  ASSERT_TRUE(st.isOk()) << st.message();
  ASSERT_TRUE(stream.synchronize().isOk());

  float ssEnd = 0;
  ASSERT_TRUE(stream.copyToHost(&ssEnd, bss, 4).isOk());
  ASSERT_TRUE(stream.synchronize().isOk());
  const double invRms = rms ? 1.0 / std::sqrt(sumSq / K + normEps) : 1.0;
  auto dotRow = [&](int64_t r) {
    double acc = 0;
    for (int64_t k = 0; k < K; ++k)
      acc += double(decode(x[k])) * decode(w[r * K + k]);
    return acc * invRms;
  };
  double errSq = 0, refSq = 0;
  for (int64_t j = 0; j < rows; ++j) {
    double ref = dotRow(j);
    if (swiglu)
      ref = ref / (1 + std::exp(-ref)) * dotRow(rows + j);
    if (residual)
      ref += decode(h0[j]);
    float got = decode(y[j]);
    ASSERT_FALSE(std::isnan(got)) << name << " (" << c.dtype << "): y[" << j
                                  << "] was not written";
    // f32 accumulation, then one to three roundings to the type (for the
    // residual, of the product and of the sum).
    double scale = std::abs(ref) + 0.05 + (residual ? std::abs(decode(h0[j])) : 0);
    ASSERT_LE(std::abs(got - ref), 4 * eps * scale)
        << name << " (" << c.dtype << "): y[" << j << "] = " << got << ", reference " << ref;
    errSq += (got - ref) * (got - ref);
    refSq += ref * ref;
  }
  EXPECT_LE(std::sqrt(errSq / refSq), 2 * eps) << name << " (" << c.dtype << ")";
  // gemv_residual added the squares of exactly what it stored; the others
  // only read the sum.
  double wantSs = ssStart;
  if (residual)
    for (int64_t j = 0; j < rows; ++j)
      wantSs += double(decode(y[j])) * decode(y[j]);
  EXPECT_NEAR(ssEnd, wantSs, 1e-6 * wantSs) << name << " (" << c.dtype << "): sum of squares";

  if (kv) {
    std::vector<uint16_t> kc(cache.size()), vc(cache.size());
    ASSERT_TRUE(stream.copyToHost(kc.data(), bkc, kc.size() * 2).isOk());
    ASSERT_TRUE(stream.copyToHost(vc.data(), bvc, vc.size() * 2).isOk());
    ASSERT_TRUE(stream.synchronize().isOk());
    // The key: QK-norm with kw, then RoPE at pos, as the attention's
    // reference computes it.
    const std::vector<double> kn =
        qwen3::test::normRopeReference(ht, &qkv[K], kw.data(), invFreq, pos, normEps);
    for (int64_t r = 0; r < cacheRows; ++r)
      for (int64_t d = 0; d < HD; ++d) {
        const int64_t at = r * HD + d;
        if (r != pos) {
          ASSERT_EQ(kc[at], qwen3::test::kPoison) << name << ": key row " << r << " written";
          ASSERT_EQ(vc[at], qwen3::test::kPoison) << name << ": value row " << r << " written";
          continue;
        }
        ASSERT_EQ(vc[at], qkv[K + HD + d]) << name << ": value row " << pos << ", dim " << d;
        ASSERT_LE(std::abs(decode(kc[at]) - kn[d]), 2 * eps * (std::abs(kn[d]) + 1.0))
            << name << ": key row " << pos << ", dim " << d;
      }
  }

  // K one tile short of whole groups: the contract refuses the launch.
  if (c.group > 1) {
    Status refused = launch(K - 512);
    EXPECT_FALSE(refused.isOk()) << name << " ran with K = " << K - 512;
  }
}

// Every instance the kernel table lists for each family and dtype.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char *dt : {"bf16", "f16"})
    for (Family f : {Family::Plain, Family::Rms, Family::Swiglu, Family::FourRows,
                     Family::Residual, Family::ResidualKv}) {
      out.push_back({dt, f, 0});
      for (const auto &[u, inst] : tableInstances({dt, f, 0}).whole)
        out.push_back({dt, f, u});
    }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Groups, DecodeGemvKernel, ::testing::ValuesIn(cases()), caseName);

// gemm_swiglu, the prompt's gate/up GEMM with SwiGLU in its epilogue:
// act[t, i] = silu(x . gate_i) * (x . up_i), each rounded as the separate
// GEMM and swiglu round, against fp64 from the rounded inputs. 200 tokens
// (a second, partial tile of 128 rows), K = 200 (a partial K step: the
// loads pad with zeros), I = 256 (two tiles, so the up rows are I rows
// after their gate rows). act is poisoned and followed by 8 poisoned rows
// past its view, which must stay so. (On sm_90a this is the TMA + wgmma
// pipeline with its epilogue in registers; on the CPU the same kernel.)
class PrefillGemmSwigluKernel : public ::testing::TestWithParam<const char *> {};

TEST_P(PrefillGemmSwigluKernel, MatchesFp64ReferenceAndWritesOnlyItsTile) {
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(GetParam());
  qwen3::test::KernelUnderTest kut;
  ASSERT_NO_FATAL_FAILURE(kut.open(GetParam(), "gemm_swiglu"));
  const int64_t T = 200, K = 200, I = 256, guard = 8;
  std::mt19937 gen(17);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  // x . w of order 1: silu's curve, not its tails.
  const float ws = 2.0f / std::sqrt(float(K));
  std::vector<uint16_t> x(T * K), w(2 * I * K), act((T + guard) * I, qwen3::test::kPoison);
  for (uint16_t &e : x)
    e = ht.encode(dist(gen));
  for (uint16_t &e : w)
    e = ht.encode(dist(gen) * ws);
  Buffer bx = kut.upload(ht.type, x.data(), T * K, 2);
  Buffer bw = kut.upload(ht.type, w.data(), 2 * I * K, 2);
  Buffer ba = kut.upload(ht.type, act.data(), (T + guard) * I, 2);
  Stream &stream = kut.device->defaultStream();
  ASSERT_TRUE(stream.freeze(bw).isOk());
  Status st = stream.launch(kut.kernel, {Arg::in(bx, {T, K}), Arg::in(bw, {2 * I, K}),
                                         Arg::out(ba, {T, I})});
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<uint16_t> got(act.size());
  ASSERT_TRUE(stream.copyToHost(got.data(), ba, got.size() * 2).isOk());
  ASSERT_TRUE(stream.synchronize().isOk());

  auto round = [&](double v) { return double(ht.decode(ht.encode(float(v)))); };
  double err2 = 0, ref2 = 0;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < I; ++i) {
      double g = 0, u = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double xv = ht.decode(x[t * K + k]);
        g += xv * ht.decode(w[i * K + k]);
        u += xv * ht.decode(w[(I + i) * K + k]);
      }
      g = round(g), u = round(u);
      const double want = round(round(g / (1.0 + std::exp(-g))) * u);
      const double v = ht.decode(got[t * I + i]);
      ASSERT_TRUE(std::isfinite(v)) << "act[" << t << ", " << i << "] not written";
      // The f32 sums may round g or u to the neighbouring value: a few
      // units of the type's rounding, relative to the row's scale.
      ASSERT_NEAR(v, want, 4 * ht.eps * (std::fabs(want) + 0.25))
          << "act[" << t << ", " << i << "]";
      err2 += (v - want) * (v - want), ref2 += want * want;
    }
  EXPECT_LT(std::sqrt(err2 / ref2), ht.eps) << "relative RMS error";
  for (int64_t e = T * I; e < (T + guard) * I; ++e)
    ASSERT_EQ(got[e], qwen3::test::kPoison) << "element " << e - T * I << " past the view";
}

INSTANTIATE_TEST_SUITE_P(Dtypes, PrefillGemmSwigluKernel, ::testing::Values("bf16", "f16"),
                         [](const auto &info) { return std::string(info.param); });

// gemm_few, the batched decode step's GEMM (y = x W^T, W's rows the dot's
// A operand, the result stored transposed), in each tile of tokens the
// kernel set has (kFewTokens): a partial token tile and a whole one, K =
// 200 (a partial K step) and N = 192 (three 64-row weight tiles), against
// fp64 from the rounded inputs; y is poisoned and followed by 4 poisoned
// rows past its view, which must stay so. (On sm_90a this is the TMA +
// wgmma pipeline with its transposed store; on the CPU the same kernel.)
class GemmFewKernel
    : public ::testing::TestWithParam<std::tuple<const char *, int64_t, int64_t>> {};

TEST_P(GemmFewKernel, MatchesFp64ReferenceAndWritesOnlyItsTile) {
  const auto [dtype, tile, T] = GetParam();
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(dtype);
  qwen3::test::KernelUnderTest kut;
  ASSERT_NO_FATAL_FAILURE(kut.open(dtype, qwen3::kernels::gemmFew(tile).name()));
  const int64_t K = 200, N = 192, guard = 4;
  std::mt19937 gen(23);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> x(T * K), w(N * K), y((T + guard) * N, qwen3::test::kPoison);
  for (uint16_t &e : x)
    e = ht.encode(dist(gen));
  for (uint16_t &e : w)
    e = ht.encode(dist(gen) / std::sqrt(float(K)));
  Buffer bx = kut.upload(ht.type, x.data(), T * K, 2);
  Buffer bw = kut.upload(ht.type, w.data(), N * K, 2);
  Buffer by = kut.upload(ht.type, y.data(), (T + guard) * N, 2);
  Stream &stream = kut.device->defaultStream();
  Status st = stream.launch(kut.kernel, {Arg::in(bx, {T, K}), Arg::in(bw, {N, K}),
                                         Arg::out(by, {T, N})});
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<uint16_t> got(y.size());
  ASSERT_TRUE(stream.copyToHost(got.data(), by, got.size() * 2).isOk());
  ASSERT_TRUE(stream.synchronize().isOk());
  double err2 = 0, ref2 = 0;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t n = 0; n < N; ++n) {
      double want = 0;
      for (int64_t k = 0; k < K; ++k)
        want += double(ht.decode(x[t * K + k])) * ht.decode(w[n * K + k]);
      const double v = ht.decode(got[t * N + n]);
      ASSERT_TRUE(std::isfinite(v)) << "y[" << t << ", " << n << "] not written";
      ASSERT_NEAR(v, want, 2 * ht.eps * (std::fabs(want) + 0.25)) << "y[" << t << ", " << n << "]";
      err2 += (v - want) * (v - want), ref2 += want * want;
    }
  EXPECT_LT(std::sqrt(err2 / ref2), ht.eps) << "relative RMS error";
  for (int64_t e = T * N; e < (T + guard) * N; ++e)
    ASSERT_EQ(got[e], qwen3::test::kPoison) << "element " << e - T * N << " past the view";
}

INSTANTIATE_TEST_SUITE_P(
    DtypesTilesAndTokens, GemmFewKernel,
    ::testing::Values(std::make_tuple("bf16", int64_t{64}, int64_t{20}),
                      std::make_tuple("f16", int64_t{64}, int64_t{64}),
                      std::make_tuple("bf16", int64_t{128}, int64_t{100}),
                      std::make_tuple("f16", int64_t{128}, int64_t{128}),
                      std::make_tuple("f16", int64_t{256}, int64_t{200}),
                      std::make_tuple("bf16", int64_t{256}, int64_t{256})),
    [](const auto &info) {
      return std::string(std::get<0>(info.param)) + "_BT" +
             std::to_string(std::get<1>(info.param)) + "_" +
             std::to_string(std::get<2>(info.param));
    });

// gemm_few_split: gemm_few over a share of K per program, each split's f32
// partial sums in its own rows of y, one tile of tokens (64 or 256) a
// split. K = 200 in 2 splits (4
// tiles, the last partial: TMA's zero fill on sm_90a) and K = 384 in 3;
// N = 192. Each partial against fp64 over its own K range; y is poisoned,
// with 4 poisoned rows past its view, which must stay so. K tiles that the
// splits do not divide are refused at launch.
class GemmFewSplitKernel
    : public ::testing::TestWithParam<std::tuple<const char *, int64_t, int64_t, int64_t>> {};

TEST_P(GemmFewSplitKernel, EverySplitMatchesFp64ReferenceOverItsK) {
  const auto [dtype, K, S, T] = GetParam();
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(dtype);
  qwen3::test::KernelUnderTest kut;
  ASSERT_NO_FATAL_FAILURE(kut.open(dtype, qwen3::kernels::gemmFewSplit(T).name()));
  const int64_t N = 192, guard = 4, rows = S * T;
  std::mt19937 gen(29);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<uint16_t> x(T * K), w(N * K);
  for (uint16_t &e : x)
    e = ht.encode(dist(gen));
  for (uint16_t &e : w)
    e = ht.encode(dist(gen) / std::sqrt(float(K)));
  const float poison = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> y((rows + guard) * N, poison);
  Buffer bx = kut.upload(ht.type, x.data(), T * K, 2);
  Buffer bw = kut.upload(ht.type, w.data(), N * K, 2);
  Buffer by = kut.upload(DType::F32, y.data(), (rows + guard) * N, 4);
  Stream &stream = kut.device->defaultStream();
  Status st = stream.launch(kut.kernel, {Arg::in(bx, {T, K}), Arg::in(bw, {N, K}),
                                         Arg::out(by, {rows, N})});
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<float> got(y.size());
  ASSERT_TRUE(stream.copyToHost(got.data(), by, got.size() * 4).isOk());
  ASSERT_TRUE(stream.synchronize().isOk());
  const int64_t perSplit = (K + 63) / 64 / S * 64;
  double err2 = 0, ref2 = 0;
  for (int64_t s = 0; s < S; ++s)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t n = 0; n < N; ++n) {
        double want = 0;
        for (int64_t k = s * perSplit; k < std::min(K, (s + 1) * perSplit); ++k)
          want += double(ht.decode(x[t * K + k])) * ht.decode(w[n * K + k]);
        const double v = got[(s * T + t) * N + n];
        ASSERT_TRUE(std::isfinite(v)) << "split " << s << " y[" << t << ", " << n << "] not written";
        ASSERT_NEAR(v, want, 1e-5 * (std::fabs(want) + 1)) << "split " << s << " y[" << t << ", " << n << "]";
        err2 += (v - want) * (v - want), ref2 += want * want;
      }
  EXPECT_LT(std::sqrt(err2 / ref2), 1e-6) << "relative RMS error";
  for (int64_t e = rows * N; e < (rows + guard) * N; ++e)
    ASSERT_TRUE(std::isnan(got[e])) << "element " << e - rows * N << " past the view";
  // 5 K tiles in 2 splits: refused before anything runs.
  std::vector<uint16_t> x5(T * 320, ht.encode(0.5f)), w5(N * 320, ht.encode(0.25f));
  Buffer bx5 = kut.upload(ht.type, x5.data(), T * 320, 2);
  Buffer bw5 = kut.upload(ht.type, w5.data(), N * 320, 2);
  Status bad = stream.launch(kut.kernel, {Arg::in(bx5, {T, 320}), Arg::in(bw5, {N, 320}),
                                          Arg::out(by, {2 * T, N})});
  EXPECT_FALSE(bad.isOk());
  EXPECT_NE(bad.message().find("as many K tiles for every split"), std::string::npos)
      << bad.message();
}

INSTANTIATE_TEST_SUITE_P(
    DtypesAndSplits, GemmFewSplitKernel,
    ::testing::Values(std::make_tuple("bf16", int64_t{200}, int64_t{2}, int64_t{64}),
                      std::make_tuple("f16", int64_t{384}, int64_t{3}, int64_t{64}),
                      std::make_tuple("bf16", int64_t{384}, int64_t{2}, int64_t{256})),
    [](const auto &info) {
      return std::string(std::get<0>(info.param)) + "_K" + std::to_string(std::get<1>(info.param)) +
             "_S" + std::to_string(std::get<2>(info.param)) + "_BT" +
             std::to_string(std::get<3>(info.param));
    });

// fold_norm_weight: w[n, k] *= g[k] in place, rounded once; 1000 columns,
// not a multiple of its 1024-column tile.
class FoldNormWeightKernel : public ::testing::TestWithParam<const char *> {};

TEST_P(FoldNormWeightKernel, ScalesEveryColumnExactly) {
  const qwen3::test::HalfType ht = qwen3::test::HalfType::of(GetParam());
  qwen3::test::KernelUnderTest kut;
  ASSERT_NO_FATAL_FAILURE(kut.open(GetParam(), "fold_norm_weight"));
  const int64_t N = 7, K = 1000;
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<uint16_t> w(N * K), g(K);
  for (uint16_t &e : w)
    e = ht.encode(dist(gen));
  for (uint16_t &e : g)
    e = ht.encode(0.5f + dist(gen) / 4);
  Buffer bw = kut.upload(ht.type, w.data(), N * K, 2), bg = kut.upload(ht.type, g.data(), K, 2);
  Stream &stream = kut.device->defaultStream();
  Status st = stream.launch(kut.kernel, {Arg::inout(bw, {N, K}), Arg::in(bg, {K})});
  ASSERT_TRUE(st.isOk()) << st.message();
  std::vector<uint16_t> got(N * K);
  ASSERT_TRUE(stream.copyToHost(got.data(), bw, got.size() * 2).isOk());
  ASSERT_TRUE(stream.synchronize().isOk());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      uint16_t want = ht.encode(ht.decode(w[n * K + k]) * ht.decode(g[k]));
      ASSERT_EQ(got[n * K + k], want) << "w[" << n << ", " << k << "]";
    }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, FoldNormWeightKernel, ::testing::Values("bf16", "f16"),
                         [](const auto &info) { return std::string(info.param); });

} // namespace
