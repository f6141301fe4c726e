#!/bin/bash
# Call 1 (next GPU session; not yet run): correctness of what sessions 30
# and 31 built without a GPU, on the default kernel set. The Qwen3 GPU
# tests (among them PrefillGemmSwigluKernel, the fused-SwiGLU engine test,
# the PromptRopeKernel tests, which run tile.roll's shuffles bit for bit
# against the angle kernels, and the rope-table engine test), the runtime
# GPU tests (MatmulTest covers the plain gemm's register epilogue, on by
# default since session 30 and never run on a GPU), memcheck and racecheck
# of the new kernel tests.
# Before each call, here: bench/results/2026-11-23-rope-table/prepare.sh
# SET... (this call: none; call 2: rows; 3: rows; 4: none; 5: roll; 6: lpt
# exp2; 7: diag attn). It copies the shared configs and tokenizer into cmpdata/ and keeps
# only the variant sets named (12 MB each): cmpdata/ travels whole with
# every call and the carry limit is 64 MB.
# Carry: build/bin/qwen3-run, build/models/qwen3/Qwen3Tests,
# build/models/qwen3/kernels, build/runtime/TileRuntimeGpuTests,
# build/runtime/test (cmpdata/ travels untracked).
# Read with ../2026-11-23-swiglu-gemm-epilogue/show.sh DIR.
R=$PWD
K=$R/build/models/qwen3/kernels
T="QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
env $T timeout 240 build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillGemmSwiglu*:*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 gpu tests rc=$?" >> $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 60 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime gpu tests rc=$?" >> $OUT/summary.txt
for tool in memcheck racecheck; do
  env $T timeout 120 compute-sanitizer --tool $tool build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillGemmSwiglu*:*PromptRopeKernel*' > $OUT/$tool-new-kernels.txt 2>&1; echo "$tool rc=$?" >> $OUT/summary.txt
done
