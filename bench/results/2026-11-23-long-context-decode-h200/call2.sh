#!/bin/bash
# Call 2: grouped decode attention at long contexts on Qwen3-4B (prompt 2048 /
# 4096 / 8192, tg 128): a tier of 48 shares (384 programs: all three
# slots per SM at 8 KV heads, where 32 shares fill two), the mask on the
# cache's last block only, both, and W = 2 at 96 shares.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
for v in s48m; do
  QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/$v QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 120 build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*grouped_f16*:*Qwen3EngineDtype*f16*' > $OUT/tests-$v.txt 2>&1; echo "tests $v rc=$?" >> $OUT/summary.txt
done
cd bench/qwen3
for pp in 8192 4096 2048; do
timeout 300 $PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-4b --pp $pp --tg 128 --rounds 2 --reps 1 \
  --variant base=$C/base --variant mask=$C/m --variant s48=$C/s48 --variant s48m=$C/s48m --variant w2_s96=$C/w2:--attention-splits,96 \
  --out $OUT/ab-pp$pp.jsonl > $OUT/ab-pp$pp.log 2>&1; echo "ab pp$pp rc=$?" >> $OUT/summary.txt
done
