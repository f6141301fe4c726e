#!/bin/bash
# Call 3: the 48-share grouped tier (a916e4b) against the session's start on
# the targets' protocol (Qwen3-8B, prompt 18, tg 2048 and 8192, f16), bf16 at
# a long prompt on Qwen3-4B (S = 32 forced there is the old pick), the
# grouped kernel from 1536 positions, and the GPU tests of the new set.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 200 build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 200 $AB --models qwen3-4b --dtype bf16 --pp 8192 --tg 128 --rounds 2 --reps 1 --variant s32=$K:--attention-splits,32 --variant new=$K --out $OUT/ab-4b-bf16-pp8192.jsonl > $OUT/ab-4b-bf16.log 2>&1; echo "ab 4b bf16 rc=$?" >> $OUT/summary.txt
timeout 120 $AB --models qwen3-4b --pp 1536 --tg 128 --rounds 2 --reps 1 --variant new=$K --variant grouped=$K:--attention-grouped-from,0 --out $OUT/ab-4b-pp1536.jsonl > $OUT/ab-4b-pp1536.log 2>&1; echo "ab 4b pp1536 rc=$?" >> $OUT/summary.txt
timeout 330 $AB --models qwen3-8b --tg 2048,8192 --rounds 1 --reps 1 --variant base=$C/base --variant new=$K --out $OUT/ab-8b.jsonl > $OUT/ab-8b.log 2>&1; echo "ab 8b rc=$?" >> $OUT/summary.txt
