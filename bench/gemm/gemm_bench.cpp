//===- gemm_bench.cpp - the .tile prefill GEMM on Qwen3 projection shapes --===//
//
//   tile-gemm-bench <qwen3_f16.json> [kernel,...] [M,M,...] [8b|4b|0.6b] [shape]
//
// The Qwen3 kernel set's `gemm` (y = x W^T, W [N, K] as Hugging Face stores
// it) on a Qwen3 size's projections (qkv, o, gate_up, down; Qwen3-8B unless
// named; one of them if `shape` names it) at M tokens, each kernel of a
// comma-separated list on the same inputs:
// 1. correctness first, on every shape: the output is poisoned (NaN), then
//    every element is checked written and 4096 sampled elements are
//    compared with an fp64 reference on the host (relative error);
// 2. time: a graph of 10 launches rotating over weight copies (more than
//    200 MB of weights, so L2 serves none), replayed 15 times, timed with
//    events; the median and IQR per launch, as TFLOP/s;
// 3. the device-to-device copy bandwidth of the same run.
// With M = 1 and a GEMV kernel (`gemv`, `gemv__WHOLE_1`) it times the decode
// GEMVs: compare GBps (bytes of W, x and y over the time) with the copy.
// The decode step's fused GEMVs (M = 1 only): `gemv_rms*` (x normalized
// by a sum of squares it is handed, the norm's weight folded into W) is
// checked against rsqrt(mean(x^2) + eps) x W^T, `gemv_residual*` (y += x
// W^T, y starting random, the squares of y added to a sum) against
// y + x W^T, and `gemv_swiglu*` (the gate/up GEMV normalizing as gemv_rms,
// SwiGLU in its epilogue, W seen as [2, I, K]) runs on the gate_up shape
// only, against silu(gate) * up. A launch a kernel's contract refuses for a shape
// is reported (`"refused"`) and the others go on.
// One JSON line per figure (bench/gemm/run.sh puts cuBLAS beside them).
//
//===----------------------------------------------------------------------===//

#include "../runtime/BenchSupport.h"

#include "tile/runtime/Half.h"
#include "tile/runtime/Runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace tile_runtime;

const char *const tile_bench::kToolName = "gemm_bench";
using tile_bench::quantile;
using tile_bench::timeReplays;

namespace {
struct Shape {
  const char *name;
  int64_t n, k;
};
// A Qwen3 size's four projections: hidden H, query width Q (heads x 128),
// KV width KV, intermediate I.
std::vector<Shape> projections(int64_t H, int64_t Q, int64_t KV, int64_t I) {
  return {{"qkv", Q + 2 * KV, H}, {"o", H, Q}, {"gate_up", 2 * I, H}, {"down", H, I}};
}
bool modelShapes(const std::string &model, std::vector<Shape> &shapes) {
  if (model == "8b")
    shapes = projections(4096, 32 * 128, 8 * 128, 12288);
  else if (model == "4b")
    shapes = projections(2560, 32 * 128, 8 * 128, 9728);
  else if (model == "0.6b")
    shapes = projections(1024, 16 * 128, 8 * 128, 3072);
  else
    return false;
  return true;
}

double silu(double g) { return g / (1.0 + std::exp(-g)); }

std::vector<uint16_t> randomHalf(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<uint16_t> v(n);
  for (uint16_t &e : v)
    e = toHalf(dist(gen));
  return v;
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tile-gemm-bench <qwen3_f16.json> [kernel,...] [M,...] "
                         "[8b|4b|0.6b] [shape]\n");
    return 2;
  }
  std::vector<std::string> kernelNames;
  {
    std::stringstream ss(argc > 2 ? argv[2] : "gemm");
    for (std::string k; std::getline(ss, k, ',');)
      kernelNames.push_back(k);
  }
  std::vector<int64_t> tokens = {512, 2048, 8192};
  if (argc > 3) {
    tokens.clear();
    std::stringstream ss(argv[3]);
    for (std::string t; std::getline(ss, t, ',');)
      tokens.push_back(std::stoll(t));
  }
  std::vector<Shape> shapes;
  std::string model = argc > 4 ? argv[4] : "8b";
  if (!modelShapes(model, shapes)) {
    std::fprintf(stderr, "tile-gemm-bench: unknown model '%s' (8b, 4b or 0.6b)\n",
                 model.c_str());
    return 2;
  }
  if (argc > 5) {
    std::string only = argv[5];
    shapes.erase(std::remove_if(shapes.begin(), shapes.end(),
                                [&](const Shape &sh) { return only != sh.name; }),
                 shapes.end());
    if (shapes.empty()) {
      std::fprintf(stderr, "tile-gemm-bench: unknown shape '%s' (qkv, o, gate_up or down)\n",
                   only.c_str());
      return 2;
    }
  }
  std::unique_ptr<Device> dev;
  // TILE_BENCH_DEVICE=cpu checks a kernel on the host build (slowly).
  const char *devName = std::getenv("TILE_BENCH_DEVICE");
  CHECK(Device::open(devName ? devName : "cuda", dev));
  Module module;
  CHECK(dev->loadModule(argv[1], module));
  std::vector<Kernel> kernels(kernelNames.size());
  for (size_t i = 0; i < kernels.size(); ++i)
    CHECK(module.kernel(kernelNames[i], kernels[i]));
  Stream &s = dev->defaultStream();

  // The copy bandwidth of this run.
  std::printf("{\"kind\": \"d2d_copy\", \"TBps\": %.3f}\n",
              tile_bench::copyTBps(*dev, s));

  bool allCorrect = true;
  for (const Shape &shape : shapes)
    for (int64_t M : tokens) {
      const int64_t N = shape.n, K = shape.k;
      int copies = std::max<int64_t>(1, 200'000'000 / (N * K * 2) + 1);
      auto xh = randomHalf(M * K, 1);
      auto w0 = randomHalf(N * K, 2);
      Buffer x, y;
      CHECK(dev->allocate(DType::F16, M * K, x));
      CHECK(dev->allocate(DType::F16, M * N, y));
      CHECK(s.copyToDevice(x, xh.data(), xh.size() * 2));
      // The copies only need distinct addresses (so L2 serves none of a
      // replay's launches), not distinct values.
      std::vector<Buffer> ws(copies);
      for (int c = 0; c < copies; ++c) {
        CHECK(dev->allocate(DType::F16, N * K, ws[c]));
        if (c == 0)
          CHECK(s.copyToDevice(ws[c], w0.data(), w0.size() * 2));
        else
          CHECK(s.copy(ws[c], ws[0], N * K * 2));
      }
      // Weights are `frozen` parameters of the GEMM and GEMV kernels; x is
      // never written here either (frozen, it may be passed to a variant
      // that declares it so, to measure what the coherent path costs).
      for (const Buffer &w : ws)
        CHECK(s.freeze(w));
      CHECK(s.freeze(x));
      for (size_t ki = 0; ki < kernels.size(); ++ki) {
        const std::string &name = kernelNames[ki];
        // The fused gate/up + SwiGLU GEMV writes I = N / 2 activations.
        const bool swiglu = name.rfind("gemv_swiglu", 0) == 0;
        const bool rms = name.rfind("gemv_rms", 0) == 0;
        const bool residual = name.rfind("gemv_residual", 0) == 0;
        if ((swiglu && std::string(shape.name) != "gate_up") ||
            ((swiglu || rms || residual) && M != 1))
          continue;
        const int64_t NY = swiglu ? N / 2 : N; // output columns
        const double normEps = 1e-6;
        // The norm's sum of squares of x (read by gemv_rms, gemv_swiglu;
        // gemv_residual adds to it, which the timing loop lets grow).
        float sumSq = 0;
        for (int64_t k = 0; k < K; ++k)
          sumSq += fromHalf(xh[k]) * fromHalf(xh[k]);
        Buffer ss;
        CHECK(dev->allocate(DType::F32, 1, ss));
        CHECK(s.copyToDevice(ss, &sumSq, 4));
        auto args = [&](const Buffer &w) -> std::vector<Arg> {
          if (swiglu)
            return {Arg::in(x, {1, 1, K}), Arg::in(w, {2, NY, K}), Arg::out(y, {1, NY}),
                    Arg::in(ss, {1}), Arg::real(normEps)};
          if (rms)
            return {Arg::in(x, {1, K}), Arg::in(w, {N, K}), Arg::out(y, {1, N}),
                    Arg::in(ss, {1}), Arg::real(normEps)};
          if (residual)
            return {Arg::in(x, {1, K}), Arg::in(w, {N, K}), Arg::inout(y, {1, N}),
                    Arg::add(ss, {1})};
          return {Arg::in(x, {M, K}), Arg::in(w, {N, K}), Arg::out(y, {M, NY})};
        };
        // Correctness first: the output poisoned (NaN), or for the residual
        // add a random start.
        std::vector<uint16_t> y0;
        if (residual) {
          y0 = randomHalf(N, 3);
          CHECK(s.copyToDevice(y, y0.data(), y0.size() * 2));
        } else {
          CHECK(s.fill(y, 0xFF));
        }
        double invRms = 1;
        if (rms || swiglu) {
          double meanSq = 0;
          for (int64_t k = 0; k < K; ++k)
            meanSq += double(fromHalf(xh[k])) * fromHalf(xh[k]) / K;
          invRms = 1 / std::sqrt(meanSq + normEps);
        }
        std::vector<Arg> a0 = args(ws[0]);
        if (Status st = s.launch(kernels[ki], a0.data(), a0.size()); !st) {
          std::printf("{\"kind\": \"gemm_tile\", \"kernel\": \"%s\", \"shape\": \"%s\", "
                      "\"M\": %lld, \"refused\": true}\n",
                      name.c_str(), shape.name, (long long)M);
          std::fprintf(stderr, "%s on %s: %s\n", name.c_str(), shape.name,
                       st.message().c_str());
          continue;
        }
        std::vector<uint16_t> yh(M * NY);
        CHECK(s.copyToHost(yh.data(), y, yh.size() * 2));
        CHECK(s.synchronize());
        int64_t unwritten = 0;
        for (uint16_t v : yh)
          unwritten += std::isnan(fromHalf(v));
        std::mt19937 gen(7);
        double errSq = 0, refSq = 0, worst = 0;
        for (int t = 0; t < 4096; ++t) {
          int64_t i = gen() % M, j = gen() % NY;
          auto row = [&](int64_t r, double &mag) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k) {
              double p = double(fromHalf(xh[i * K + k])) * fromHalf(w0[r * K + k]);
              acc += p;
              mag += std::abs(p);
            }
            mag *= invRms;
            return acc * invRms;
          };
          double mag = 0;
          double ref = row(j, mag);
          if (swiglu) {
            // silu(gate) * up: the error of gate scales by silu's slope
            // (at most 1.1), so the same bound holds up to a constant.
            double um = 0, u = row(j + NY, um);
            mag = silu(std::abs(ref)) * um + std::abs(u) * mag;
            ref = silu(ref) * u;
          }
          if (residual) {
            ref += fromHalf(y0[j]);
            mag += std::abs(fromHalf(y0[j]));
          }
          double err = std::abs(fromHalf(yh[i * NY + j]) - ref);
          errSq += err * err;
          refSq += ref * ref;
          worst = std::max(worst, err / (std::abs(ref) + 1e-3 * mag));
        }
        double rel = std::sqrt(errSq / refSq);
        bool ok = unwritten == 0 && rel < 2e-3;
        allCorrect = allCorrect && ok;
        // Time: a graph of launches over the weight copies.
        const int perGraph = 10;
        Graph g;
        CHECK(s.beginCapture());
        for (int r = 0; r < perGraph; ++r) {
          std::vector<Arg> ar = args(ws[r % copies]);
          CHECK(s.launch(kernels[ki], ar.data(), ar.size()));
        }
        CHECK(s.endCapture(g));
        std::vector<double> us = timeReplays(g, s, 15, perGraph);
        double med = quantile(us, 0.5);
        std::printf("{\"kind\": \"gemm_tile\", \"kernel\": \"%s\", \"shape\": "
                    "\"%s\", \"M\": %lld, \"N\": %lld, \"K\": %lld, \"us\": %.2f, "
                    "\"us_iqr\": [%.2f, %.2f], \"TFLOPs\": %.1f, \"GBps\": %.0f, \"rel_err\": "
                    "%.2e, \"worst_scaled_err\": %.2e, \"unwritten\": %lld, "
                    "\"correct\": %s}\n",
                    name.c_str(), shape.name, (long long)M, (long long)N, (long long)K, med,
                    quantile(us, 0.25), quantile(us, 0.75),
                    2.0 * M * N * K / (med * 1e-6) / 1e12,
                    2.0 * (M * K + N * K + M * NY) / (med * 1e-6) / 1e9, rel, worst,
                    (long long)unwritten, ok ? "true" : "false");
        std::fflush(stdout);
      }
    }
  return allCorrect ? 0 : 1;
}
