//===- BenchUtil.h - shared helpers of the GPU kernel benchmarks ----------===//
//
// Driver-API helpers for kernel_bench and gemv_ab: kernel parameters in the
// convert-tile-to-gpu ABI (each view as its expanded memref descriptor:
// allocated pointer, aligned pointer, offset, sizes, strides; then the
// scalars), random non-zero inputs, poisoned outputs, graph-replayed timing
// and the copy-bandwidth reference.
//
//===----------------------------------------------------------------------===//

#ifndef BENCH_GPU_BENCHUTIL_H
#define BENCH_GPU_BENCHUTIL_H

#include "tile/runtime/Half.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

using tile_runtime::fromBF16;
using tile_runtime::fromHalf;
using tile_runtime::toBF16;
using tile_runtime::toHalf;

#define CHECK(call)                                                            \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *name = nullptr;                                              \
      cuGetErrorName(r_, &name);                                               \
      std::fprintf(stderr, "%s failed: %s (line %d)\n", #call,                 \
                   name ? name : "?", __LINE__);                               \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace bench {

/// Kernel parameters: views as expanded memref descriptors, then scalars.
struct Params {
  std::vector<std::vector<int64_t>> words;
  std::vector<float> floats;
  std::vector<void *> ptrs;

  void view(CUdeviceptr p, std::vector<int64_t> sizes,
            std::vector<int64_t> strides) {
    std::vector<int64_t> w{static_cast<int64_t>(p), static_cast<int64_t>(p), 0};
    w.insert(w.end(), sizes.begin(), sizes.end());
    w.insert(w.end(), strides.begin(), strides.end());
    words.push_back(std::move(w));
  }
  void f32(float v) { floats.push_back(v); }
  /// Pointers to every parameter, in order (views first, then scalars, as
  /// the kernels below declare them).
  void **finish() {
    ptrs.clear();
    for (auto &w : words)
      for (int64_t &x : w)
        ptrs.push_back(&x);
    for (float &f : floats)
      ptrs.push_back(&f);
    return ptrs.data();
  }
};

inline std::vector<uint16_t> randomHalves(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<uint16_t> v(n);
  for (auto &x : v) {
    float f;
    do
      f = d(gen);
    while (f == 0.0f);
    x = toHalf(f);
  }
  return v;
}

inline CUdeviceptr upload(const std::vector<uint16_t> &h) {
  CUdeviceptr p;
  CHECK(cuMemAlloc(&p, h.size() * 2));
  CHECK(cuMemcpyHtoD(p, h.data(), h.size() * 2));
  return p;
}

inline std::vector<uint16_t> download(CUdeviceptr p, size_t n) {
  std::vector<uint16_t> h(n);
  CHECK(cuMemcpyDtoH(h.data(), p, n * 2));
  return h;
}

constexpr uint16_t kPoison = 0x7dad;

/// Median time (us) of one launch, from a graph of `perGraph` launches that
/// cycle through `variants` parameter sets.
inline double timeLaunches(CUfunction f, unsigned grid, unsigned block,
                    std::vector<Params> &variants, CUstream s,
                    int perGraph = 50, int reps = 15) {
  CUgraph graph;
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  for (int i = 0; i < perGraph; ++i) {
    Params &p = variants[i % variants.size()];
    CHECK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, p.finish(), nullptr));
  }
  CHECK(cuStreamEndCapture(s, &graph));
  CUgraphExec exec;
  CHECK(cuGraphInstantiate(&exec, graph, 0));
  CUevent a, b;
  CHECK(cuEventCreate(&a, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&b, CU_EVENT_DEFAULT));
  CHECK(cuGraphLaunch(exec, s)); // warm-up
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    CHECK(cuEventRecord(a, s));
    CHECK(cuGraphLaunch(exec, s));
    CHECK(cuEventRecord(b, s));
    CHECK(cuEventSynchronize(b));
    float ms;
    CHECK(cuEventElapsedTime(&ms, a, b));
    times.push_back(ms * 1000.0 / perGraph);
  }
  std::sort(times.begin(), times.end());
  CHECK(cuGraphExecDestroy(exec));
  CHECK(cuGraphDestroy(graph));
  return times[times.size() / 2];
}

/// Device-to-device copy bandwidth (GB/s, bytes read + written) of a buffer
/// of `bytes` (1 GiB: the reference figure).
inline double copyBandwidth(CUstream s, size_t bytes = size_t(1) << 30) {
  CUdeviceptr a, b;
  CHECK(cuMemAlloc(&a, bytes));
  CHECK(cuMemAlloc(&b, bytes));
  CHECK(cuMemsetD8(a, 1, bytes));
  CUevent e0, e1;
  CHECK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  std::vector<double> t;
  for (int i = 0; i < 12; ++i) {
    CHECK(cuEventRecord(e0, s));
    CHECK(cuMemcpyDtoDAsync(b, a, bytes, s));
    CHECK(cuEventRecord(e1, s));
    CHECK(cuEventSynchronize(e1));
    float ms;
    CHECK(cuEventElapsedTime(&ms, e0, e1));
    if (i > 1)
      t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  CHECK(cuMemFree(a));
  CHECK(cuMemFree(b));
  return 2.0 * bytes / (t[t.size() / 2] * 1e-3) / 1e9;
}

struct Row {
  std::string kernel, shape;
  double us, gbps, error;
  bool ok;
};

/// y[N] = W[N, K] x[K] with random non-zero f16 W and x: W uploaded in
/// enough copies (with `rotate`) that cycling through them exceeds L2 several
/// times, one parameter set per copy, and the double-precision reference.
struct GemvProblem {
  int64_t N, K;
  std::vector<uint16_t> w, x;
  std::vector<double> ref, mag;
  std::vector<CUdeviceptr> dws;
  CUdeviceptr dx = 0, dy = 0;
  std::vector<Params> params;

  GemvProblem(int64_t N, int64_t K, bool rotate)
      : N(N), K(K), w(randomHalves(N * K, -1, 1, 5)),
        x(randomHalves(K, -1, 1, 6)), ref(N), mag(N) {
    int copies =
        rotate ? int(std::max<int64_t>(1, (int64_t(512) << 20) / (N * K * 2)))
               : 1;
    for (int c = 0; c < copies; ++c)
      dws.push_back(upload(w));
    dx = upload(x);
    CHECK(cuMemAlloc(&dy, N * 2));
    params.resize(copies);
    for (int c = 0; c < copies; ++c) {
      params[c].view(dws[c], {N, K}, {K, 1});
      params[c].view(dx, {K}, {1});
      params[c].view(dy, {N}, {1});
    }
    for (int64_t i = 0; i < N; ++i)
      for (int64_t k = 0; k < K; ++k) {
        double t = double(fromHalf(w[i * K + k])) * fromHalf(x[k]);
        ref[i] += t;
        mag[i] += std::abs(t);
      }
  }
  GemvProblem(const GemvProblem &) = delete;
  ~GemvProblem() {
    for (CUdeviceptr d : dws)
      cuMemFree(d);
    cuMemFree(dx);
    cuMemFree(dy);
  }

  /// W and x read once, y written once.
  double bytes() const { return double(N) * K * 2 + K * 2 + N * 2; }

  /// Runs `f` once on a poisoned y and returns the largest error relative to
  /// the magnitude sum / sqrt(K); infinity if an element was not written.
  double check(CUfunction f, unsigned grid, unsigned block, CUstream s) {
    CHECK(cuMemsetD16(dy, kPoison, N));
    CHECK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, params[0].finish(),
                         nullptr));
    CHECK(cuStreamSynchronize(s));
    std::vector<uint16_t> y = download(dy, N);
    double err = 0;
    for (int64_t i = 0; i < N; ++i) {
      if (y[i] == kPoison)
        return INFINITY;
      err = std::max(err, std::abs(fromHalf(y[i]) - ref[i]) /
                              (mag[i] / std::sqrt(double(K)) + 1e-3));
    }
    return err;
  }
};

} // namespace bench

using namespace bench;

#endif // BENCH_GPU_BENCHUTIL_H
