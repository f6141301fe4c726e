//===- gemm_bench.cpp - the .tile prefill GEMM on Qwen3 projection shapes --===//
//
//   tile-gemm-bench <qwen3_f16.json> [kernel] [M,M,...]
//
// The Qwen3 kernel set's `gemm` (y = x W^T, W [N, K] as Hugging Face stores
// it) on the Qwen3-8B projections (qkv, o, gate_up, down) at M tokens:
// 1. correctness first, on every shape: the output is poisoned (NaN), then
//    every element is checked written and 4096 sampled elements are
//    compared with an fp64 reference on the host (relative error);
// 2. time: a graph of 10 launches rotating over weight copies (more than
//    200 MB of weights, so L2 serves none), replayed 15 times, timed with
//    events; the median and IQR per launch, as TFLOP/s;
// 3. the device-to-device copy bandwidth of the same run.
// With M = 1 and a GEMV kernel (`gemv`, `gemv__WHOLE_1`) it times the decode
// GEMVs: compare GBps (bytes of W, x and y over the time) with the copy.
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
// Qwen3-8B: hidden 4096, 32 query and 8 KV heads of 128, intermediate 12288.
const Shape kShapes[] = {{"qkv", 4096 + 2 * 8 * 128, 4096},
                         {"o", 4096, 4096},
                         {"gate_up", 2 * 12288, 4096},
                         {"down", 4096, 12288}};

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
    std::fprintf(stderr,
                 "usage: tile-gemm-bench <qwen3_f16.json> [kernel] [M,...]\n");
    return 2;
  }
  std::string kernelName = argc > 2 ? argv[2] : "gemm";
  std::vector<int64_t> tokens = {512, 2048, 8192};
  if (argc > 3) {
    tokens.clear();
    std::stringstream ss(argv[3]);
    for (std::string t; std::getline(ss, t, ',');)
      tokens.push_back(std::stoll(t));
  }
  std::unique_ptr<Device> dev;
  CHECK(Device::open("cuda", dev));
  Module module;
  CHECK(dev->loadModule(argv[1], module));
  Kernel gemm;
  CHECK(module.kernel(kernelName, gemm));
  Stream &s = dev->defaultStream();

  // The copy bandwidth of this run (1 GiB each way).
  {
    const int64_t n = int64_t{1} << 29;
    Buffer a, b;
    CHECK(dev->allocate(DType::F16, n, a));
    CHECK(dev->allocate(DType::F16, n, b));
    Event e0, e1;
    std::vector<double> ms;
    for (int r = 0; r < 7; ++r) {
      CHECK(s.record(e0));
      CHECK(s.copy(b, a, n * 2));
      CHECK(s.record(e1));
      CHECK(e1.wait());
      float t;
      CHECK(e1.elapsedMs(e0, t));
      ms.push_back(t);
    }
    std::printf("{\"kind\": \"d2d_copy\", \"TBps\": %.3f}\n",
                2.0 * n * 2 / (quantile(ms, 0.5) * 1e-3) / 1e12);
  }

  for (const Shape &shape : kShapes)
    for (int64_t M : tokens) {
      const int64_t N = shape.n, K = shape.k;
      int copies = std::max<int64_t>(1, 200'000'000 / (N * K * 2) + 1);
      auto xh = randomHalf(M * K, 1);
      Buffer x, y;
      CHECK(dev->allocate(DType::F16, M * K, x));
      CHECK(dev->allocate(DType::F16, M * N, y));
      CHECK(s.copyToDevice(x, xh.data(), xh.size() * 2));
      std::vector<Buffer> ws(copies);
      std::vector<uint16_t> w0;
      for (int c = 0; c < copies; ++c) {
        auto wh = randomHalf(N * K, 2 + c);
        if (c == 0)
          w0 = wh;
        CHECK(dev->allocate(DType::F16, N * K, ws[c]));
        CHECK(s.copyToDevice(ws[c], wh.data(), wh.size() * 2));
      }
      // Correctness first.
      CHECK(s.fill(y, 0xFF)); // NaN
      CHECK(s.launch(gemm, {Arg::in(x, {M, K}), Arg::in(ws[0], {N, K}),
                            Arg::out(y, {M, N})}));
      std::vector<uint16_t> yh(M * N);
      CHECK(s.copyToHost(yh.data(), y, yh.size() * 2));
      CHECK(s.synchronize());
      int64_t unwritten = 0;
      for (uint16_t v : yh)
        unwritten += std::isnan(fromHalf(v));
      std::mt19937 gen(7);
      double errSq = 0, refSq = 0, worst = 0;
      for (int t = 0; t < 4096; ++t) {
        int64_t i = gen() % M, j = gen() % N;
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < K; ++k) {
          double p = double(fromHalf(xh[i * K + k])) * fromHalf(w0[j * K + k]);
          ref += p;
          mag += std::abs(p);
        }
        double err = std::abs(fromHalf(yh[i * N + j]) - ref);
        errSq += err * err;
        refSq += ref * ref;
        worst = std::max(worst, err / (std::abs(ref) + 1e-3 * mag));
      }
      double rel = std::sqrt(errSq / refSq);
      bool ok = unwritten == 0 && rel < 2e-3;
      // Time: a graph of launches over the weight copies.
      const int perGraph = 10;
      Graph g;
      CHECK(s.beginCapture());
      for (int r = 0; r < perGraph; ++r)
        CHECK(s.launch(gemm, {Arg::in(x, {M, K}), Arg::in(ws[r % copies], {N, K}),
                              Arg::out(y, {M, N})}));
      CHECK(s.endCapture(g));
      std::vector<double> us = timeReplays(g, s, 15, perGraph);
      double med = quantile(us, 0.5);
      std::printf("{\"kind\": \"gemm_tile\", \"kernel\": \"%s\", \"shape\": "
                  "\"%s\", \"M\": %lld, \"N\": %lld, \"K\": %lld, \"us\": %.2f, "
                  "\"us_iqr\": [%.2f, %.2f], \"TFLOPs\": %.1f, \"GBps\": %.0f, \"rel_err\": "
                  "%.2e, \"worst_scaled_err\": %.2e, \"unwritten\": %lld, "
                  "\"correct\": %s}\n",
                  kernelName.c_str(), shape.name, (long long)M, (long long)N,
                  (long long)K, med, quantile(us, 0.25), quantile(us, 0.75),
                  2.0 * M * N * K / (med * 1e-6) / 1e12,
                  2.0 * (M * K + N * K + M * N) / (med * 1e-6) / 1e9, rel, worst,
                  (long long)unwritten, ok ? "true" : "false");
      std::fflush(stdout);
      if (!ok)
        return 1;
    }
  return 0;
}
