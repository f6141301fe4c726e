#!/bin/bash
# Call 5: the decode step's RoPE with rotate-half as a roll (cmpdata/roll:
# rope-roll.diff, built here before the call with
#   cp -r models/qwen3/kernels /tmp/k-roll &&
#   patch -d /tmp/k-roll -p1 < bench/results/2026-11-23-rope-table/rope-roll.diff &&
#   QWEN3_KERNEL_SOURCE=/tmp/k-roll/qwen3.tile build/models/qwen3/tilec-kernel-variant.sh cmpdata/roll).
# Every decode kernel that rotates (decode_attention, the grouped one,
# attention_merge_kv_write, gemv_residual_kv) takes sin's first half
# negated and rolls: shuffles 159 -> 111, 160 -> 120, 95 -> 71 a thread in
# the first, third and fourth; the grouped kernel's [G, HD] queries (past
# the first warp) went through shared memory: 56 -> 44 barriers at G = 4.
# The decode attention, GEMV, RoPE and engine tests on the set, then decode
# A/B against the default set: tg 128 (0.6B, 4B, 8B), Qwen3-4B at 4096
# prompt positions (grouped kernel) and Qwen3-8B at tg 8192, two rounds.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/roll QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 120 build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttention*:*Qwen3EngineDtype*:*Rope*:*DecodeGemv*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 gpu tests (roll set) rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 120 $AB --models qwen3-0.6b,qwen3-4b,qwen3-8b --pp 18 --tg 128 --rounds 2 --reps 1 --variant base=$K --variant roll=$C/roll --out $OUT/ab-tg128.jsonl > $OUT/ab-tg128.log 2>&1; echo "ab tg128 rc=$?" >> $OUT/summary.txt
timeout 100 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant base=$K --variant roll=$C/roll --out $OUT/ab-4b-pp4096.jsonl > $OUT/ab-4b-pp4096.log 2>&1; echo "ab 4b pp4096 rc=$?" >> $OUT/summary.txt
timeout 220 $AB --models qwen3-8b --pp 18 --tg 8192 --rounds 2 --reps 1 --variant base=$K --variant roll=$C/roll --out $OUT/ab-8b-tg8192.jsonl > $OUT/ab-8b-tg8192.log 2>&1; echo "ab 8b tg8192 rc=$?" >> $OUT/summary.txt
