//===- gemv_ab.cpp - GEMV variants and compiler options, interleaved ------===//
//
// Runs on the GPU machine:  gemv_ab A.cubin B.cubin ...
// Compares the GEMV kernels of bench/gpu/kernels.mlir compiled several ways
// (one CUBIN per compiler configuration) at the Qwen3-8B decode shapes.
// Differences of a few percent are below the drift between separate runs,
// so every (cubin, kernel, shape) is timed once per round, rounds
// interleaved, and the median over rounds is reported. Each configuration
// is checked against a double-precision reference (poisoned output) first.
//
//===----------------------------------------------------------------------===//

#include "BenchUtil.h"

#include <map>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gemv_ab A.cubin [B.cubin ...]\n");
    return 2;
  }
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  std::vector<CUmodule> modules;
  for (int i = 1; i < argc; ++i) {
    std::ifstream file(argv[i], std::ios::binary);
    std::string cubin((std::istreambuf_iterator<char>(file)), {});
    if (cubin.empty()) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      return 1;
    }
    CUmodule m;
    CHECK(cuModuleLoadData(&m, cubin.data()));
    modules.push_back(m);
  }
  CUstream s;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  const unsigned block = 128;
  const int rounds = 7;
  double copy = copyBandwidth(s);
  std::printf("device-to-device copy (1 GiB): %.0f GB/s; %d interleaved rounds\n\n",
              copy, rounds);
  std::printf("| kernel | N x K |");
  for (int i = 1; i < argc; ++i)
    std::printf(" %s |", argv[i]);
  std::printf("\n|---|---|");
  for (int i = 1; i < argc; ++i)
    std::printf("---|");
  std::printf("\n");

  struct Variant { const char *kernel; int64_t rows; };
  struct Shape { int64_t N, K; std::vector<Variant> variants; };
  std::vector<Variant> k4096 = {
      {"gemv_k4096", 8}, {"gemv_k4096_r2", 2}, {"gemv_k4096_w4", 4},
      {"gemv_k4096_r2_k1024", 2}};
  std::vector<Shape> shapes = {{6144, 4096, k4096},
                               {4096, 4096, k4096},
                               {24576, 4096, k4096},
                               {4096, 12288, {{"gemv_k12288", 8}, {"gemv_k12288_w4", 4}, {"gemv_k12288_r2", 2},
                                {"gemv_k12288_r2_k1024", 2}}},
                               {151936, 4096, k4096}};
  for (const Shape &shape : shapes) {
    const int64_t N = shape.N, K = shape.K;
    GemvProblem problem(N, K, /*rotate=*/true);
    std::map<std::pair<size_t, size_t>, std::vector<double>> times;
    for (int r = 0; r < rounds; ++r)
      for (size_t v = 0; v < shape.variants.size(); ++v)
        for (size_t m = 0; m < modules.size(); ++m) {
          CUfunction f;
          CHECK(cuModuleGetFunction(&f, modules[m], shape.variants[v].kernel));
          unsigned grid = unsigned((N + shape.variants[v].rows - 1) /
                                   shape.variants[v].rows);
          if (r == 0) {
            double err = problem.check(f, grid, block, s);
            if (!(err < 2e-3)) {
              std::fprintf(stderr, "%s %s: wrong y (max relative error %g)\n",
                           argv[m + 1], shape.variants[v].kernel, err);
              return 1;
            }
          }
          times[{v, m}].push_back(
              timeLaunches(f, grid, block, problem.params, s, 50, 15));
        }
    double bytes = problem.bytes();
    for (size_t v = 0; v < shape.variants.size(); ++v) {
      std::printf("| %s | %lldx%lld |", shape.variants[v].kernel, (long long)N,
                  (long long)K);
      for (size_t m = 0; m < modules.size(); ++m) {
        auto &t = times[{v, m}];
        std::sort(t.begin(), t.end());
        double us = t[t.size() / 2];
        std::printf(" %.1f us, %.1f%% (%.1f-%.1f) |", us,
                    100 * bytes / (us * 1e-6) / 1e9 / copy,
                    100 * bytes / (t.back() * 1e-6) / 1e9 / copy,
                    100 * bytes / (t.front() * 1e-6) / 1e9 / copy);
      }
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  return 0;
}
