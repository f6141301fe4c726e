#!/bin/bash
# Call 7 (prepare.sh diag attn): the prompt attention with the causal mask
# only on the key blocks that cross the diagonal (the blocks wholly before
# the query block's first row run in a loop of their own, without the
# compare and select; 255 registers, no spills), and all three attention
# changes together (longest first, base-2 softmax, diagonal mask). Their
# prompt-attention and engine tests, then TTFT interleaved (base, diag,
# attn) at 8B and 4B, 2048 tokens, and 8B at 8192.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
for v in diag attn; do
  env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/$v QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 80 build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillAttention*:*Qwen3EngineDtype*' > $OUT/qwen3-gpu-tests-$v.txt 2>&1; echo "qwen3 gpu tests ($v set) rc=$?" >> $OUT/summary.txt
done
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
V="--variant base=$K --variant diag=$C/diag --variant attn=$C/attn"
timeout 250 $AB --models qwen3-8b,qwen3-4b --pp 2048 --tg 4 --rounds 2 --reps 3 $V --out $OUT/ab-ttft-pp2048.jsonl > $OUT/ab-ttft-pp2048.log 2>&1; echo "ab pp2048 rc=$?" >> $OUT/summary.txt
timeout 180 $AB --models qwen3-8b --pp 8192 --tg 4 --rounds 2 --reps 3 $V --out $OUT/ab-ttft-8b-8192.jsonl > $OUT/ab-ttft-8b-8192.log 2>&1; echo "ab 8b 8192 rc=$?" >> $OUT/summary.txt
