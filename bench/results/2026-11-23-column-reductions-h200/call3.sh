#!/bin/bash
# Call 3: the join over [heads, S, HD] partials (one weight per row) against
# the session's start: GPU tests, Qwen3-4B at a 4096 prompt, the grouped
# kernel from 0 positions at a 1024 prompt, 0.6B and 8B at tg 8192.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
B=base=$C/base@$C/base/qwen3-run
timeout 150 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant $B --variant new=$K --out $OUT/ab-4b-pp4096.jsonl > $OUT/ab-4b-pp4096.log 2>&1; echo "ab 4b pp4096 rc=$?" >> $OUT/summary.txt
timeout 100 $AB --models qwen3-4b --pp 1024 --tg 128 --rounds 2 --reps 1 --variant new=$K --variant grouped=$K:--attention-grouped-from,0 --out $OUT/ab-4b-pp1024.jsonl > $OUT/ab-4b-pp1024.log 2>&1; echo "ab 4b pp1024 rc=$?" >> $OUT/summary.txt
timeout 100 $AB --models qwen3-0.6b --tg 8192 --rounds 2 --reps 1 --variant $B --variant new=$K --out $OUT/ab-0.6b.jsonl > $OUT/ab-0.6b.log 2>&1; echo "ab 0.6b rc=$?" >> $OUT/summary.txt
timeout 230 $AB --models qwen3-8b --tg 8192 --rounds 1 --reps 1 --variant $B --variant new=$K --out $OUT/ab-8b.jsonl > $OUT/ab-8b.log 2>&1; echo "ab 8b rc=$?" >> $OUT/summary.txt
