#!/bin/bash
# Call 5: grouped partials transposed ([heads, HD, S], the merge's sums in
# one thread) on top of the 48-share tier. GPU tests and sanitizers of the
# final set; Qwen3-4B at prompts 4096 / 8192 and Qwen3-0.6B at tg 8192:
# the session's start (base), the 48-share tier alone (s48, 892a16d) and
# both (new). base and s48 run on 892a16d's qwen3-run (the old partial
# layout), new on this commit's.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
OLD=$C/qwen3-run-old
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
timeout 150 $T compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*grouped*' > $OUT/racecheck-grouped.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
timeout 150 $T compute-sanitizer --tool memcheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*grouped*:*Qwen3EngineDtype*EveryAttention*' > $OUT/memcheck-grouped.txt 2>&1; echo "memcheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
V="--variant base=$C/base@$OLD --variant s48=$C/s48@$OLD --variant new=$K"
timeout 150 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 $V --out $OUT/ab-4b-pp4096.jsonl > $OUT/ab-4b-pp4096.log 2>&1; echo "ab 4b pp4096 rc=$?" >> $OUT/summary.txt
timeout 150 $AB --models qwen3-4b --pp 8192 --tg 128 --rounds 2 --reps 1 $V --out $OUT/ab-4b-pp8192.jsonl > $OUT/ab-4b-pp8192.log 2>&1; echo "ab 4b pp8192 rc=$?" >> $OUT/summary.txt
timeout 120 $AB --models qwen3-0.6b --tg 8192 --rounds 1 --reps 1 $V --out $OUT/ab-0.6b.jsonl > $OUT/ab-0.6b.log 2>&1; echo "ab 0.6b rc=$?" >> $OUT/summary.txt
