#!/bin/bash
# Call 2: the wgmma-dots kernel set (cmpdata/wg: tilec-kernel-variant.sh
# cmpdata/wg --pipeline-options=wgmma-dots=1; it changes prefill_attention
# and grouped_decode_attention): their GPU tests first, then TTFT A/B
# against the default set (8B and 4B at 2048, 8B at 8192) and decode A/B
# where the grouped kernel runs (4B at 4096 prompt positions), then the
# prompt attention's launches alone (--profile).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/wg QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
env $T timeout 120 build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*' > $OUT/qwen3-gpu-tests-wg.txt 2>&1; echo "qwen3 gpu tests (wg set) rc=$?" >> $OUT/summary.txt
grep -q "FAILED" $OUT/qwen3-gpu-tests-wg.txt && exit 0
env $T timeout 120 compute-sanitizer --tool memcheck build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillAttention*' > $OUT/memcheck-wg.txt 2>&1; echo "memcheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 200 $AB --models qwen3-8b,qwen3-4b --pp 2048 --tg 4 --rounds 2 --reps 3 --variant base=$K --variant wg=$C/wg --out $OUT/ab-ttft-2048.jsonl > $OUT/ab-ttft-2048.log 2>&1; echo "ab ttft 2048 rc=$?" >> $OUT/summary.txt
timeout 120 $AB --models qwen3-8b --pp 8192 --tg 4 --rounds 2 --reps 2 --variant base=$K --variant wg=$C/wg --out $OUT/ab-ttft-8192.jsonl > $OUT/ab-ttft-8192.log 2>&1; echo "ab ttft 8192 rc=$?" >> $OUT/summary.txt
timeout 90 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant base=$K --variant wg=$C/wg --out $OUT/ab-decode-4096.jsonl > $OUT/ab-decode-4096.log 2>&1; echo "ab decode 4096 rc=$?" >> $OUT/summary.txt
