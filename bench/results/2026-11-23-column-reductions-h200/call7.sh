#!/bin/bash
# Call 7: the final tree (column reductions; grouped partials [S, HD]):
# racecheck and memcheck of the attention kernel tests; what each decode
# kernel costs inside the replayed step at tg 128 (--leave-out, wrong
# outputs, timing only); and against the session's start: Qwen3-8B tg 8192,
# 4B tg 2048, bf16 tg 128.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 100 $T compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*' > $OUT/racecheck-attention.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
timeout 100 $T compute-sanitizer --tool memcheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*' > $OUT/memcheck-attention.txt 2>&1; echo "memcheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
B="--variant base=$C/base@$C/base/qwen3-run"
timeout 150 $AB --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 1 --reps 1 --variant new=$K --variant no_attn=$K:--leave-out,decode_attention --variant no_qkv=$K:--leave-out,gemv_rms --variant no_oproj=$K:--leave-out,gemv_residual_kv --variant no_swiglu=$K:--leave-out,gemv_swiglu --variant no_down=$K:--leave-out,gemv_residual__ --out $OUT/ab-leave-out.jsonl > $OUT/ab-leave-out.log 2>&1; echo "ab leave-out rc=$?" >> $OUT/summary.txt
timeout 100 $AB --models qwen3-4b --tg 2048 --rounds 1 --reps 1 $B --variant new=$K --out $OUT/ab-4b-tg2048.jsonl > $OUT/ab-4b-tg2048.log 2>&1; echo "ab 4b tg2048 rc=$?" >> $OUT/summary.txt
timeout 150 $AB --models qwen3-0.6b,qwen3-4b --dtype bf16 --tg 128 --rounds 1 --reps 1 $B --variant new=$K --out $OUT/ab-bf16-tg128.jsonl > $OUT/ab-bf16-tg128.log 2>&1; echo "ab bf16 tg128 rc=$?" >> $OUT/summary.txt
timeout 200 $AB --models qwen3-8b --tg 8192 --rounds 1 --reps 1 $B --variant new=$K --out $OUT/ab-8b-tg8192.jsonl > $OUT/ab-8b-tg8192.log 2>&1; echo "ab 8b tg8192 rc=$?" >> $OUT/summary.txt
