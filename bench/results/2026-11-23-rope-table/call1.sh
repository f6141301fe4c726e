#!/bin/bash
# Call 1 (next GPU session; not yet run): correctness of what sessions 30
# and 31 built without a GPU. The Qwen3 GPU tests (among them
# PrefillGemmSwigluKernel, the fused-SwiGLU engine test, the PromptRopeKernel
# tests and the rope-table engine test), the runtime GPU tests (MatmulTest
# covers the plain gemm's new register epilogue, on by default), memcheck
# and racecheck of the new kernel tests. Carry: build/bin/qwen3-run,
# build/models/qwen3/Qwen3Tests, build/models/qwen3/kernels,
# build/runtime/TileRuntimeGpuTests, build/runtime/test; cmpdata/ holds
# configs/ and tokenizer/ (a copy of ../shared/qwen3). Read with
# ../2026-11-23-swiglu-gemm-epilogue/show.sh DIR.
R=$PWD
K=$R/build/models/qwen3/kernels
T="QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
env $T timeout 200 build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillGemmSwiglu*:*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 gpu tests rc=$?" >> $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 60 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime gpu tests rc=$?" >> $OUT/summary.txt
for tool in memcheck racecheck; do
  env $T timeout 90 compute-sanitizer --tool $tool build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillGemmSwiglu*:*PromptRopeKernel*' > $OUT/$tool-new-kernels.txt 2>&1; echo "$tool rc=$?" >> $OUT/summary.txt
done
