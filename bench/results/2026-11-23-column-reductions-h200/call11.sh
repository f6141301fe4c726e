#!/bin/bash
# Call 11: decode_attention with its share's first K/V block loaded before
# the query's norm and RoPE (early: the first block's body ahead of the
# loop), against the tree; its f16 kernel tests first.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/early QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 100 build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*f16*:-*bf16*' > $OUT/early-tests.txt 2>&1; echo "early tests rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 200 $AB --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 2 --reps 1 --variant new=$K --variant early=$C/early --out $OUT/ab-tg128.jsonl > $OUT/ab-tg128.log 2>&1; echo "ab tg128 rc=$?" >> $OUT/summary.txt
timeout 200 $AB --models qwen3-8b --tg 2048 --rounds 1 --reps 1 --variant new=$K --variant early=$C/early --out $OUT/ab-8b-tg2048.jsonl > $OUT/ab-8b-tg2048.log 2>&1; echo "ab 8b tg2048 rc=$?" >> $OUT/summary.txt
