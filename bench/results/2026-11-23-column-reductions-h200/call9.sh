#!/bin/bash
# Call 9: the final tree's GPU tests: runtime (with the weighted column sum
# test, added after call 5) and Qwen3.
R=$PWD
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 100 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime tests rc=$?" >> $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
timeout 60 compute-sanitizer --tool racecheck env TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json build/runtime/TileRuntimeGpuTests --gtest_filter='SmallTile*' > $OUT/racecheck-smalltile.txt 2>&1; echo "racecheck smalltile rc=$?" >> $OUT/summary.txt
