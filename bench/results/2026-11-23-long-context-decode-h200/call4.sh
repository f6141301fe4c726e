#!/bin/bash
# Call 4: the final kernel set (892a16d): GPU tests, racecheck of the
# 48-share kernel test, Qwen3-8B tg 8192 against the session's start (two
# rounds), and what the grouped attention and its merge cost inside the
# replayed step at a long prompt (--leave-out; Qwen3-4B, prompt 4096).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
timeout 120 $T compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*S48*' > $OUT/racecheck-s48.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
timeout 120 $T compute-sanitizer --tool memcheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*S48*' > $OUT/memcheck-s48.txt 2>&1; echo "memcheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 100 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant new=$K --variant no_merge=$K:--leave-out,attention_merge --variant no_attention=$K:--leave-out,grouped_decode_attention,attention_merge --out $OUT/ab-4b-leave-out.jsonl > $OUT/ab-4b-leave-out.log 2>&1; echo "ab 4b leave-out rc=$?" >> $OUT/summary.txt
timeout 360 $AB --models qwen3-8b --tg 8192 --rounds 2 --reps 1 --variant base=$C/base --variant new=$K --out $OUT/ab-8b.jsonl > $OUT/ab-8b.log 2>&1; echo "ab 8b rc=$?" >> $OUT/summary.txt
