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
    int copies = int(std::max<int64_t>(1, (int64_t(512) << 20) / (N * K * 2)));
    auto w = randomHalves(N * K, -1, 1, 5), x = randomHalves(K, -1, 1, 6);
    std::vector<CUdeviceptr> dws;
    for (int c = 0; c < copies; ++c)
      dws.push_back(upload(w));
    CUdeviceptr dx = upload(x), dy;
    CHECK(cuMemAlloc(&dy, N * 2));
    std::vector<Params> p(copies);
    for (int c = 0; c < copies; ++c) {
      p[c].view(dws[c], {N, K}, {K, 1});
      p[c].view(dx, {K}, {1});
      p[c].view(dy, {N}, {1});
    }
    std::vector<double> ref(N), mag(N);
    for (int64_t i = 0; i < N; ++i)
      for (int64_t k = 0; k < K; ++k) {
        double t = double(fromHalf(w[i * K + k])) * fromHalf(x[k]);
        ref[i] += t;
        mag[i] += std::abs(t);
      }
    std::map<std::pair<size_t, size_t>, std::vector<double>> times;
    for (int r = 0; r < rounds; ++r)
      for (size_t v = 0; v < shape.variants.size(); ++v)
        for (size_t m = 0; m < modules.size(); ++m) {
          CUfunction f;
          CHECK(cuModuleGetFunction(&f, modules[m], shape.variants[v].kernel));
          unsigned grid = unsigned((N + shape.variants[v].rows - 1) /
                                   shape.variants[v].rows);
          if (r == 0) {
            CHECK(cuMemsetD16(dy, kPoison, N));
            CHECK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s,
                                 p[0].finish(), nullptr));
            CHECK(cuStreamSynchronize(s));
            auto y = download(dy, N);
            for (int64_t i = 0; i < N; ++i) {
              double err = std::abs(fromHalf(y[i]) - ref[i]) /
                           (mag[i] / std::sqrt(double(K)) + 1e-3);
              if (y[i] == kPoison || !(err < 2e-3)) {
                std::fprintf(stderr, "%s %s: wrong y[%lld] (%g vs %g)\n",
                             argv[m + 1], shape.variants[v].kernel,
                             (long long)i, fromHalf(y[i]), ref[i]);
                return 1;
              }
            }
          }
          times[{v, m}].push_back(timeLaunches(f, grid, block, p, s, 50, 15));
        }
    double bytes = double(N) * K * 2 + K * 2 + N * 2;
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
    for (auto d : dws) cuMemFree(d);
    cuMemFree(dx); cuMemFree(dy);
  }
  return 0;
}
