//===- launch_bench.cpp - what a contract-checked launch and a replay cost -===//
//
//   launch_bench <kernels.json> [cpu|cuda]
//
// 1. Check cost: Stream::launch of scale_rows on an empty problem runs every
//    argument and launch-contract check, then launches nothing (median of 7
//    runs of 200k launches). Target: under 1 us.
// 2. (cuda) Stream launches of a tiny kernel (add_one, one program): host
//    time per launch including the checks.
// 3. (cuda) A 1000-launch graph of the same kernel, replayed 100 times,
//    timed with events: time per kernel (median and IQR over replays).
//    Target: under 2 us. Correctness first: x must equal its start value
//    plus one per launch replayed.
// 4. (cuda) Device-to-device copy bandwidth in the same run (1 GiB), the
//    figure written beside every result.
// 5. (cuda) A phase boundary against a launch boundary, at grids of one to
//    eight programs (of 4 warps) per SM: barrier_phases_9 (9 grid barriers,
//    tile.grid_sync) against barrier_phases_1, per barrier; and 10
//    launches of phase_store against 1 in a graph, per launch. Correctness
//    first: every row holds the last phase's value, the counter is back at
//    0.
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"

#include "tile/runtime/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace tile_runtime;

const char *const tile_bench::kToolName = "launch_bench";
using tile_bench::median;
using tile_bench::quantile;
using tile_bench::timeReplays;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: launch_bench <kernels.json> [cpu|cuda]\n");
    return 2;
  }
  std::string spec = argc > 2 ? argv[2] : "cuda";
  std::unique_ptr<Device> dev;
  CHECK(Device::open(spec, dev));
  Module module;
  CHECK(dev->loadModule(argv[1], module));
  Kernel scale, addOne;
  CHECK(module.kernel("scale_rows", scale));
  CHECK(module.kernel("add_one", addOne));
  Stream &s = dev->defaultStream();
  std::printf("device: %s\n", dev->name().c_str());

  // 1. The checks alone.
  Buffer x, y;
  CHECK(dev->allocate(DType::F32, 256, x));
  CHECK(dev->allocate(DType::F32, 256, y));
  Arg args[] = {Arg::in(x, {0, 256}), Arg::out(y, {0, 256}), Arg::real(0.5)};
  std::vector<double> perLaunchNs;
  const int n = 200000;
  for (int run = 0; run < 7; ++run) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i)
      CHECK(s.launch(scale, args, 3));
    auto t1 = std::chrono::steady_clock::now();
    perLaunchNs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
  }
  std::printf("contract-checked launch, checks only (scale_rows: 3 args, "
              "2 rules, grid rule): median %.1f ns, min %.1f ns per launch "
              "(7 runs x %d)\n",
              median(perLaunchNs), *std::min_element(perLaunchNs.begin(), perLaunchNs.end()), n);
  if (!dev->isCuda())
    return 0;

  // 4 (first, so the GPU is warm). Copy bandwidth.
  const int64_t copyBytes = int64_t(1) << 30;
  Buffer ca, cb;
  CHECK(dev->allocate(DType::I8, copyBytes, ca));
  CHECK(dev->allocate(DType::I8, copyBytes, cb));
  CHECK(s.fill(ca, 1));
  std::vector<double> gbs;
  for (int i = 0; i < 12; ++i) {
    Event e0, e1;
    CHECK(s.record(e0));
    CHECK(s.copy(cb, ca, copyBytes));
    CHECK(s.record(e1));
    CHECK(e1.wait());
    float ms;
    CHECK(e1.elapsedMs(e0, ms));
    if (i >= 2)
      gbs.push_back(2.0 * copyBytes / (ms * 1e-3) / 1e9);
  }
  double copyGBs = median(gbs);
  std::printf("device-to-device copy: %.0f GB/s (read + write, 1 GiB, median "
              "of 10)\n", copyGBs);

  // 2. Stream launches of a one-program kernel.
  Buffer v;
  CHECK(dev->allocate(DType::F32, 128, v));
  std::vector<float> zeros(128, 0.25f);
  CHECK(s.copyToDevice(v, zeros.data(), 512));
  Arg vArgs[] = {Arg::inout(v, {128})};
  const int launches = 10000;
  CHECK(s.synchronize());
  Event l0, l1;
  CHECK(s.record(l0));
  auto h0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i)
    CHECK(s.launch(addOne, vArgs, 1));
  auto h1 = std::chrono::steady_clock::now();
  CHECK(s.record(l1));
  CHECK(l1.wait());
  float streamMs;
  CHECK(l1.elapsedMs(l0, streamMs));
  std::printf("stream launches of add_one: host %.2f us per launch (checks + "
              "cuLaunchKernel), GPU %.2f us per kernel (%d launches)\n",
              std::chrono::duration<double, std::micro>(h1 - h0).count() / launches,
              streamMs * 1e3 / launches, launches);

  // 3. A 1000-launch graph.
  const int graphLaunches = 1000, replays = 100;
  Graph g;
  CHECK(s.beginCapture());
  for (int i = 0; i < graphLaunches; ++i)
    CHECK(s.launch(addOne, vArgs, 1));
  CHECK(s.endCapture(g));
  std::vector<double> perKernelUs = timeReplays(g, s, replays, graphLaunches);
  std::vector<float> out(128);
  CHECK(s.copyToHost(out.data(), v, 512));
  CHECK(s.synchronize());
  double want = 0.25 + launches + double(graphLaunches) * (replays + 1);
  for (int i = 0; i < 128; ++i)
    if (out[i] != static_cast<float>(want)) {
      std::fprintf(stderr, "launch_bench: add_one gave %g at %d, expected %g\n",
                   out[i], i, want);
      return 1;
    }
  std::printf("graph of %d add_one launches: median %.3f us per kernel (IQR "
              "%.3f-%.3f, %d replays); results correct (x = %.0f)\n",
              graphLaunches, median(perKernelUs), quantile(perKernelUs, 0.25),
              quantile(perKernelUs, 0.75), replays, want);
  // 5. Grid barriers against launch boundaries.
  Kernel store, phases1, phases9;
  CHECK(module.kernel("phase_store", store));
  CHECK(module.kernel("barrier_phases_1", phases1));
  CHECK(module.kernel("barrier_phases_9", phases9));
  const int sms = dev->multiprocessors();
  Buffer counter;
  CHECK(dev->allocate(DType::I32, 1, counter));
  CHECK(s.fill(counter, 0));
  for (int perSM : {1, 2, 4, 8}) {
    const int64_t rows = int64_t(sms) * perSM;
    Buffer a;
    CHECK(dev->allocate(DType::F32, rows * 32, a));
    auto time = [&](const Kernel &k, bool ticket, int launchesPerGraph, float last) {
      std::vector<Arg> av = {Arg::inout(a, {rows, 32})};
      if (ticket)
        av.push_back(Arg::ticket(counter, {1}));
      CHECK(s.fill(a, 0));
      Graph gr;
      CHECK(s.beginCapture());
      for (int i = 0; i < launchesPerGraph; ++i)
        CHECK(s.launch(k, av.data(), av.size()));
      CHECK(s.endCapture(gr));
      std::vector<double> us = timeReplays(gr, s, 50, 1);
      std::vector<float> got(rows * 32);
      int32_t count = -1;
      CHECK(s.copyToHost(got.data(), a, rows * 32 * 4));
      CHECK(s.copyToHost(&count, counter, 4));
      CHECK(s.synchronize());
      for (float v : got)
        if (v != last) {
          std::fprintf(stderr, "launch_bench: %s left %g, expected %g\n", k.name().c_str(), v,
                       last);
          std::exit(1);
        }
      if (count != 0) {
        std::fprintf(stderr, "launch_bench: the barrier counter ended at %d\n", count);
        std::exit(1);
      }
      return median(us);
    };
    const double b1 = time(phases1, true, 1, 2.0f), b9 = time(phases9, true, 1, 10.0f);
    const double l1 = time(store, false, 1, 1.0f), l10 = time(store, false, 10, 1.0f);
    std::printf("{\"kind\": \"phase_boundary\", \"programs\": %lld, \"programs_per_sm\": %d, "
                "\"barrier_us\": %.3f, \"launch_us\": %.3f, \"one_barrier_kernel_us\": %.3f, "
                "\"nine_barrier_kernel_us\": %.3f, \"one_launch_us\": %.3f, "
                "\"ten_launches_us\": %.3f, \"copy_gbps\": %.0f}\n",
                (long long)rows, perSM, (b9 - b1) / 8, (l10 - l1) / 9, b1, b9, l1, l10, copyGBs);
  }
  PoolStats p = dev->poolStats();
  std::printf("pool: %lld allocations, %lld bytes in use, %lld reserved\n",
              (long long)p.allocations, (long long)p.bytesInUse,
              (long long)p.bytesReserved);
  return 0;
}
