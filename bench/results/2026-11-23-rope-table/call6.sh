#!/bin/bash
# Call 6: the prompt attention, two queued variants (cmpdata/lpt and
# cmpdata/exp2, built here before the call; keep only these two sets in
# cmpdata/):
#   for v in lpt:attention-longest-first exp2:prefill-attention-exp2; do
#     rm -rf /tmp/k-${v%%:*} && cp -r models/qwen3/kernels /tmp/k-${v%%:*} &&
#     patch -d /tmp/k-${v%%:*} -p1 < bench/results/2026-11-23-rope-table/${v#*:}.diff &&
#     QWEN3_KERNEL_SOURCE=/tmp/k-${v%%:*}/qwen3.tile build/models/qwen3/tilec-kernel-variant.sh cmpdata/${v%%:*}; done
# lpt: programs longest first; exp2: the softmax in base 2 (one ex2 an
# element instead of an accurate exp). Their prompt-attention and engine
# tests, then TTFT interleaved (base, lpt, exp2) at 8B and 4B, 2048 tokens,
# and 8B at 8192 (attention 34% of the prefill there in session 9).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
for v in lpt exp2; do
  env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/$v QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 80 build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillAttention*:*Qwen3EngineDtype*' > $OUT/qwen3-gpu-tests-$v.txt 2>&1; echo "qwen3 gpu tests ($v set) rc=$?" >> $OUT/summary.txt
done
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
V="--variant base=$K --variant lpt=$C/lpt --variant exp2=$C/exp2"
timeout 250 $AB --models qwen3-8b,qwen3-4b --pp 2048 --tg 4 --rounds 2 --reps 3 $V --out $OUT/ab-ttft-pp2048.jsonl > $OUT/ab-ttft-pp2048.log 2>&1; echo "ab pp2048 rc=$?" >> $OUT/summary.txt
timeout 180 $AB --models qwen3-8b --pp 8192 --tg 4 --rounds 2 --reps 3 $V --out $OUT/ab-ttft-8b-8192.jsonl > $OUT/ab-ttft-8b-8192.log 2>&1; echo "ab 8b 8192 rc=$?" >> $OUT/summary.txt
