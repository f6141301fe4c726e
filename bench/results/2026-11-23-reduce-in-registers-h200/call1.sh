#!/bin/bash
# Call 1: correctness of the registers-for-reductions kernel sets, then decode A/B (f16).
R=$PWD
PY=/opt/torch/.venv/bin/python3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
t0=$(date +%s)
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime rc=$?" >> $OUT/summary.txt
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$R/build/models/qwen3/kernels QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 rc=$?" >> $OUT/summary.txt
t1=$(date +%s); echo "tests $((t1-t0)) s" >> $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 120 compute-sanitizer --tool racecheck --racecheck-report all build/runtime/TileRuntimeGpuTests --gtest_filter='Reduction*:*Join*' > $OUT/racecheck-runtime.txt 2>&1; echo "racecheck runtime rc=$?" >> $OUT/summary.txt
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$R/build/models/qwen3/kernels QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 150 compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttention*:*DecodeGemv*' > $OUT/racecheck-qwen3.txt 2>&1; echo "racecheck qwen3 rc=$?" >> $OUT/summary.txt
t2=$(date +%s); echo "sanitizer $((t2-t1)) s" >> $OUT/summary.txt
cd bench/qwen3
timeout 330 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128 --rounds 2 --reps 1 --variant base=$R/cmpdata/base --variant regs=$R/build/models/qwen3/kernels --out $OUT/ab-f16.jsonl > $OUT/ab-f16.log 2>&1; echo "ab rc=$?" >> $OUT/summary.txt
t3=$(date +%s); echo "ab $((t3-t2)) s" >> $OUT/summary.txt
