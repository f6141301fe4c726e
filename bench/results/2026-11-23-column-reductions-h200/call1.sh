#!/bin/bash
# Call 1: the grouped decode attention merging its own shares (join; the
# output projection writes the token's K/V) against the session's start
# (8382757: the merge a launch of its own): GPU tests, racecheck of the
# grouped kernel tests, Qwen3-4B at a 4096 prompt, and the grouped kernel
# from 0 positions at a 1024 prompt (the switch is at 2048).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
timeout 150 $T compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*grouped*' > $OUT/racecheck-grouped.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 150 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant base=$C/base@$C/base/qwen3-run --variant new=$K --out $OUT/ab-4b-pp4096.jsonl > $OUT/ab-4b-pp4096.log 2>&1; echo "ab 4b pp4096 rc=$?" >> $OUT/summary.txt
timeout 150 $AB --models qwen3-4b --pp 1024 --tg 128 --rounds 2 --reps 1 --variant new=$K --variant grouped=$K:--attention-grouped-from,0 --out $OUT/ab-4b-short.jsonl > $OUT/ab-4b-short.log 2>&1; echo "ab 4b short rc=$?" >> $OUT/summary.txt
