#!/bin/bash
# Call 5: the grouped decode attention's rotate-half as a roll (cmpdata/roll:
# grouped-attention-roll.diff, built here before the call with
#   cp -r models/qwen3/kernels /tmp/k-roll &&
#   patch -d /tmp/k-roll -p1 < bench/results/2026-11-23-rope-table/grouped-attention-roll.diff &&
#   QWEN3_KERNEL_SOURCE=/tmp/k-roll/qwen3.tile build/models/qwen3/tilec-kernel-variant.sh cmpdata/roll).
# Its G = 4 and 8 kernels ([G, HD] queries, past the first warp) rotated
# through shared memory: 56 -> 44 barriers in the PTX at G = 4. The decode
# attention tests and engine tests on the set, then decode A/B against the
# default set where the grouped kernel runs: Qwen3-4B at 4096 prompt
# positions (tg 128) and Qwen3-8B at tg 8192 (pp 18), two rounds.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/roll QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 120 build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttention*:*Qwen3EngineDtype*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 gpu tests (roll set) rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 150 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant base=$K --variant roll=$C/roll --out $OUT/ab-4b-pp4096.jsonl > $OUT/ab-4b-pp4096.log 2>&1; echo "ab 4b pp4096 rc=$?" >> $OUT/summary.txt
timeout 300 $AB --models qwen3-8b --pp 18 --tg 8192 --rounds 2 --reps 1 --variant base=$K --variant roll=$C/roll --out $OUT/ab-8b-tg8192.jsonl > $OUT/ab-8b-tg8192.log 2>&1; echo "ab 8b tg8192 rc=$?" >> $OUT/summary.txt
