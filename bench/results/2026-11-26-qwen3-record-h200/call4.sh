#!/bin/bash
# Record call C: every Qwen3 GPU test and every runtime GPU test on the
# record's kernel set and binaries (the default set of 1b519c0 onwards).
R=$PWD
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures \
  timeout 300 build/models/qwen3/Qwen3Tests > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 gpu tests rc=$?" >> $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 120 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime gpu tests rc=$?" >> $OUT/summary.txt
cat $OUT/summary.txt; grep -h "PASSED\|FAILED\|SKIPPED \]" $OUT/*-tests.txt | sort | uniq -c | head -20
