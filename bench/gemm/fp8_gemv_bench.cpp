//===- fp8_gemv_bench.cpp - FP8 decode GEMVs beside the 16-bit ones --------===//
//
//   tile-fp8-gemv-bench <qwen3_bf16.json> [8b|14b|32b ...] [--fp8=k1,k2,...]
//
// A Qwen3 size's four decode projections (qkv, o, gate_up, down) as the
// kernel set's plain GEMVs: `gemv_fp8__U_4` on e4m3 weights with one f32
// scale per 128 x 128 block (or each instance --fp8 lists, from the same
// manifest: variants of R, U and warps; `gemv_rms_fp8` instances, which
// normalize x and apply the norm weight, run on every shape, and
// `gemv_swiglu_fp8` ones, with SwiGLU in the epilogue, on gate_up's),
// and beside it the bf16 `gemv__WHOLE_1` at the
// U the engine's pick gives the shape (the whole loop where an instance
// has that many 512-column steps, else 4, else 2, else 1), on the same x.
// 1. correctness first: the output poisoned (NaN), every element checked
//    written, 256 sampled rows against fp64 (FP8: over the bytes decoded by
//    the format's definition and the block scales);
// 2. time: a graph of 10 launches rotating over weight copies (more than
//    200 MB, so L2 serves none), replayed 15 times, median and IQR per
//    launch; GB/s counts the bytes a launch must read and write (weights,
//    scales, x, y);
// 3. the device-to-device copy bandwidth of the same run.
// One JSON line per figure; a launch an instance's contract refuses (a K
// that is not a whole number of its groups) is reported as refused.
//
//===----------------------------------------------------------------------===//

#include "../runtime/BenchSupport.h"

#include "tile/runtime/Half.h"
#include "tile/runtime/Runtime.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace tile_runtime;

const char *const tile_bench::kToolName = "fp8_gemv_bench";
using tile_bench::quantile;
using tile_bench::timeReplays;

namespace {
struct Shape {
  const char *name;
  int64_t n, k;
};
bool modelShapes(const std::string &model, std::vector<Shape> &shapes) {
  int64_t H, Q, KV, I;
  if (model == "8b")
    H = 4096, Q = 32 * 128, KV = 8 * 128, I = 12288;
  else if (model == "14b")
    H = 5120, Q = 40 * 128, KV = 8 * 128, I = 17408;
  else if (model == "32b")
    H = 5120, Q = 64 * 128, KV = 8 * 128, I = 25600;
  else
    return false;
  shapes = {{"qkv", Q + 2 * KV, H}, {"o", H, Q}, {"gate_up", 2 * I, H}, {"down", H, I}};
  return true;
}

/// The bf16 plain GEMV instance the engine's pick takes for K.
std::string bf16Gemv(int64_t k) {
  int64_t steps = k / 512;
  for (int64_t u : {steps, int64_t(4), int64_t(2), int64_t(1)})
    if (steps % u == 0 && (u == 1 || u == 2 || u == 4 || u == 5 || u == 8 || u == 10))
      return u == 1 ? "gemv__WHOLE_1" : "gemv__WHOLE_1__U_" + std::to_string(u);
  return "gemv";
}

enum class Family { Plain, Rms, Swiglu };
Family familyOf(const std::string &kernel) {
  if (kernel.rfind("gemv_rms_fp8", 0) == 0)
    return Family::Rms;
  if (kernel.rfind("gemv_swiglu_fp8", 0) == 0)
    return Family::Swiglu;
  return Family::Plain;
}

double e4m3(uint8_t b) {
  int e = (b >> 3) & 15, m = b & 7;
  double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1.0 + m / 8.0, e - 7);
  return (b & 0x80) ? -v : v;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tile-fp8-gemv-bench <qwen3_bf16.json> [8b|14b|32b ...]\n");
    return 2;
  }
  std::vector<std::string> models, fp8Kernels = {"gemv_fp8__U_4"};
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--fp8=", 0) == 0) {
      fp8Kernels.clear();
      std::string list = a.substr(6);
      for (size_t at = 0; at <= list.size();) {
        size_t comma = std::min(list.find(',', at), list.size());
        fp8Kernels.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    } else {
      models.push_back(a);
    }
  }
  if (models.empty())
    models = {"8b"};
  std::unique_ptr<Device> dev;
  const char *devName = std::getenv("TILE_BENCH_DEVICE");
  CHECK(Device::open(devName ? devName : "cuda", dev));
  Module module;
  CHECK(dev->loadModule(argv[1], module));
  Stream &s = dev->defaultStream();

  // The copy bandwidth of this run.
  std::printf("{\"kind\": \"d2d_copy\", \"TBps\": %.3f}\n",
              tile_bench::copyTBps(*dev, s));

  bool allCorrect = true;
  for (const std::string &model : models) {
    std::vector<Shape> shapes;
    if (!modelShapes(model, shapes)) {
      std::fprintf(stderr, "tile-fp8-gemv-bench: unknown model '%s' (8b, 14b or 32b)\n",
                   model.c_str());
      return 2;
    }
    for (const Shape &shape : shapes) {
      const int64_t N = shape.n, K = shape.k, SR = N / 128, SC = K / 128;
      std::mt19937 gen(5);
      std::uniform_real_distribution<float> dist(-1, 1);
      std::uniform_int_distribution<int> byte(0, 255);
      std::vector<uint16_t> xh(K);
      for (uint16_t &e : xh)
        e = toBF16(dist(gen));
      std::vector<uint16_t> w16(N * K);
      for (uint16_t &e : w16)
        e = toBF16(dist(gen) / std::sqrt(float(K)));
      std::vector<uint8_t> w8(N * K);
      for (uint8_t &b : w8) {
        do
          b = static_cast<uint8_t>(byte(gen));
        while (((b >> 3) & 15) > 9);
      }
      // The norm weight and x's sum of squares (the norm's r) for the rms
      // and SwiGLU families.
      std::vector<uint16_t> gh(K);
      for (uint16_t &e : gh)
        e = toBF16(0.5f + std::abs(dist(gen)));
      float ssx = 0;
      for (uint16_t e : xh)
        ssx += fromBF16(e) * fromBF16(e);
      const float eps = 1e-6f;
      const double r = 1.0 / std::sqrt(double(ssx) / K + eps);
      std::vector<float> sc(SR * SC);
      for (size_t i = 0; i < sc.size(); ++i)
        sc[i] = (0.5f + 0.01f * float(i % 37)) / std::sqrt(float(K));
      Buffer x, y, scales, gw, ss;
      CHECK(dev->allocate(DType::BF16, K, x));
      CHECK(dev->allocate(DType::BF16, K, gw));
      CHECK(dev->allocate(DType::F32, 1, ss));
      CHECK(s.copyToDevice(gw, gh.data(), K * 2));
      CHECK(s.copyToDevice(ss, &ssx, 4));
      CHECK(dev->allocate(DType::BF16, N, y));
      CHECK(dev->allocate(DType::F32, SR * SC, scales));
      CHECK(s.copyToDevice(x, xh.data(), K * 2));
      CHECK(s.copyToDevice(scales, sc.data(), sc.size() * 4));
      CHECK(s.freeze(x));
      CHECK(s.freeze(scales));
      CHECK(s.freeze(gw));

      std::vector<std::string> names = {bf16Gemv(K)};
      names.insert(names.end(), fp8Kernels.begin(), fp8Kernels.end());
      for (size_t ni = 0; ni < names.size(); ++ni) {
        const bool fp8 = ni > 0;
        const std::string &name = names[ni];
        const Family family = fp8 ? familyOf(name) : Family::Plain;
        if (family == Family::Swiglu && std::string(shape.name) != "gate_up")
          continue;
        // SwiGLU's output: one activation per gate/up row pair.
        const int64_t I = N / 2, NY = family == Family::Swiglu ? I : N;
        Kernel kernel;
        // A manifest of FP8 variants alone has no bf16 baseline.
        if (!fp8 && !module.kernel(name, kernel))
          continue;
        if (fp8)
          CHECK(module.kernel(name, kernel));
        const int64_t wBytes = N * K * (fp8 ? 1 : 2);
        const int copies = static_cast<int>(200'000'000 / wBytes + 1);
        std::vector<Buffer> ws(copies);
        for (int c = 0; c < copies; ++c) {
          CHECK(dev->allocate(fp8 ? DType::F8E4M3 : DType::BF16, N * K, ws[c]));
          if (c == 0)
            CHECK(s.copyToDevice(ws[c], fp8 ? static_cast<const void *>(w8.data())
                                            : static_cast<const void *>(w16.data()),
                                 wBytes));
          else
            CHECK(s.copy(ws[c], ws[0], wBytes));
          CHECK(s.freeze(ws[c]));
        }
        auto args = [&](const Buffer &w) -> std::vector<Arg> {
          if (family == Family::Rms)
            return {Arg::in(x, {1, K}), Arg::in(gw, {1, K}), Arg::in(w, {N, K}),
                    Arg::in(scales, {SR, SC}), Arg::out(y, {1, N}), Arg::in(ss, {1}),
                    Arg::real(eps)};
          if (family == Family::Swiglu)
            return {Arg::in(x, {1, 1, K}), Arg::in(gw, {1, 1, K}), Arg::in(w, {2, I, K}),
                    Arg::in(scales, {2, I / 128, SC}), Arg::out(y, {1, I}), Arg::in(ss, {1}),
                    Arg::real(eps)};
          if (fp8)
            return {Arg::in(x, {1, K}), Arg::in(w, {N, K}), Arg::in(scales, {SR, SC}),
                    Arg::out(y, {1, N})};
          return {Arg::in(x, {1, K}), Arg::in(w, {N, K}), Arg::out(y, {1, N})};
        };
        CHECK(s.fill(y, 0xFF));
        std::vector<Arg> a0 = args(ws[0]);
        if (Status st = s.launch(kernel, a0.data(), a0.size()); !st) {
          // A K that is not a whole number of the instance's groups.
          std::printf("{\"kind\": \"gemv\", \"model\": \"%s\", \"shape\": \"%s\", "
                      "\"kernel\": \"%s\", \"refused\": true}\n",
                      model.c_str(), shape.name, name.c_str());
          std::fprintf(stderr, "%s on %s %s: %s\n", name.c_str(), model.c_str(), shape.name,
                       st.message().c_str());
          continue;
        }
        std::vector<uint16_t> yh(NY);
        CHECK(s.copyToHost(yh.data(), y, NY * 2));
        CHECK(s.synchronize());
        int64_t unwritten = 0;
        for (uint16_t v : yh)
          unwritten += std::isnan(fromBF16(v));
        double errSq = 0, refSq = 0;
        // Row j of the product, in fp64: x (times g, for the norm's
        // families) against the weights as decoded.
        auto dotRow = [&](int64_t j) {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += double(fromBF16(xh[k])) *
                   (family == Family::Plain ? 1.0 : double(fromBF16(gh[k]))) *
                   (fp8 ? e4m3(w8[j * K + k]) * sc[(j / 128) * SC + k / 128]
                        : double(fromBF16(w16[j * K + k])));
          return family == Family::Plain ? acc : acc * r;
        };
        for (int t = 0; t < 256; ++t) {
          int64_t j = gen() % NY;
          double ref;
          if (family == Family::Swiglu) {
            // Rounded as the kernel rounds: gate and up to bf16, SiLU's
            // output to bf16.
            double gate = fromBF16(toBF16(float(dotRow(j))));
            double up = fromBF16(toBF16(float(dotRow(I + j))));
            ref = double(fromBF16(toBF16(float(gate / (1.0 + std::exp(-gate)))))) * up;
          } else {
            ref = dotRow(j);
          }
          double err = fromBF16(yh[j]) - ref;
          errSq += err * err;
          refSq += ref * ref;
        }
        double rel = std::sqrt(errSq / refSq);
        bool ok = unwritten == 0 && rel < 8e-3;
        allCorrect = allCorrect && ok;
        const int perGraph = 10;
        Graph g;
        CHECK(s.beginCapture());
        for (int r = 0; r < perGraph; ++r) {
          std::vector<Arg> ar = args(ws[r % copies]);
          CHECK(s.launch(kernel, ar.data(), ar.size()));
        }
        CHECK(s.endCapture(g));
        std::vector<double> us = timeReplays(g, s, 15, perGraph);
        double med = quantile(us, 0.5);
        double bytes = double(wBytes) + (fp8 ? SR * SC * 4.0 : 0.0) + K * 2.0 + NY * 2.0 +
                       (family == Family::Plain ? 0.0 : K * 2.0);
        std::printf("{\"kind\": \"gemv\", \"model\": \"%s\", \"shape\": \"%s\", \"weights\": "
                    "\"%s\", \"kernel\": \"%s\", \"N\": %lld, \"K\": %lld, \"us\": %.2f, "
                    "\"us_iqr\": [%.2f, %.2f], \"GBps\": %.0f, \"rel_err\": %.2e, "
                    "\"unwritten\": %lld, \"correct\": %s}\n",
                    model.c_str(), shape.name, fp8 ? "fp8" : "bf16", name.c_str(),
                    (long long)N, (long long)K, med, quantile(us, 0.25), quantile(us, 0.75),
                    bytes / (med * 1e-6) / 1e9, rel, (long long)unwritten,
                    ok ? "true" : "false");
        std::fflush(stdout);
      }
    }
  }
  return allCorrect ? 0 : 1;
}
