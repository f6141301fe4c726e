#!/bin/bash
# Call 5: the kernel set as at the session's start (grouped attention with
# its merge launch) compiled with column reductions in registers, against
# the session's start: GPU tests, then the targets' protocol (prompt 18)
# at tg 128 (f16: 0.6B, 4B, 8B; bf16: 0.6B, 4B) and Qwen3-8B at tg 2048.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 100 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime tests rc=$?" >> $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
B=base=$C/base@$C/base/qwen3-run
timeout 200 $AB --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128 --rounds 2 --reps 1 --variant $B --variant new=$K --out $OUT/ab-tg128.jsonl > $OUT/ab-tg128.log 2>&1; echo "ab tg128 rc=$?" >> $OUT/summary.txt
timeout 150 $AB --models qwen3-0.6b,qwen3-4b --dtype bf16 --tg 128 --rounds 2 --reps 1 --variant $B --variant new=$K --out $OUT/ab-bf16-tg128.jsonl > $OUT/ab-bf16-tg128.log 2>&1; echo "ab bf16 tg128 rc=$?" >> $OUT/summary.txt
timeout 120 $AB --models qwen3-8b --tg 2048 --rounds 1 --reps 1 --variant $B --variant new=$K --out $OUT/ab-8b-tg2048.jsonl > $OUT/ab-8b-tg2048.log 2>&1; echo "ab 8b tg2048 rc=$?" >> $OUT/summary.txt
