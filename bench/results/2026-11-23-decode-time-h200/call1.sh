#!/bin/bash
# Call 1: frozen loads before the grid wait: GPU tests on the new sets, then decode A/B (f16 tg 128).
R=$PWD
PY=/opt/torch/.venv/bin/python3
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime rc=$?" >> $OUT/summary.txt
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$R/build/models/qwen3/kernels QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 rc=$?" >> $OUT/summary.txt
t1=$(date +%s); echo "tests $((t1-t0)) s" >> $OUT/summary.txt
cd bench/qwen3
timeout 330 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128 --rounds 2 --reps 1 --variant base=$R/cmpdata/base --variant pre16=$R/cmpdata/pre16 --variant pre4=$R/cmpdata/pre4 --out $OUT/ab-f16.jsonl > $OUT/ab-f16.log 2>&1; echo "ab f16 rc=$?" >> $OUT/summary.txt
t2=$(date +%s); echo "f16 $((t2-t1)) s" >> $OUT/summary.txt
