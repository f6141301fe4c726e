#!/bin/bash
# Call 7: the token's own key and value loaded beside the query in decode_attention (kvearly): GPU tests, racecheck, decode A/B against settled.
R=$PWD
PY=/opt/torch/.venv/bin/python3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
t0=$(date +%s)
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$R/cmpdata/kvearly QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 rc=$?" >> $OUT/summary.txt
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$R/cmpdata/kvearly QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 100 compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*' > $OUT/racecheck-attention.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
t1=$(date +%s); echo "tests $((t1-t0)) s" >> $OUT/summary.txt
cd bench/qwen3
timeout 200 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128,512 --rounds 2 --reps 1 --variant settled=$R/cmpdata/settled --variant kvearly=$R/cmpdata/kvearly --out $OUT/ab-f16.jsonl > $OUT/ab-f16.log 2>&1; echo "ab f16 rc=$?" >> $OUT/summary.txt
t2=$(date +%s); echo "f16 $((t2-t1)) s" >> $OUT/summary.txt
timeout 100 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --dtype bf16 --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 2 --reps 1 --variant settled=$R/cmpdata/settled --variant kvearly=$R/cmpdata/kvearly --out $OUT/ab-bf16.jsonl > $OUT/ab-bf16.log 2>&1; echo "ab bf16 rc=$?" >> $OUT/summary.txt
t3=$(date +%s); echo "bf16 $((t3-t2)) s" >> $OUT/summary.txt
