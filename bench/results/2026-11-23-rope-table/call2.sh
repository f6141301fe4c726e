#!/bin/bash
# Call 2: the rows-in-registers kernel set (cmpdata/rows, built here before
# the call with build/models/qwen3/tilec-kernel-variant.sh cmpdata/rows
# --pipeline-options=rows-in-registers=1): the
# same Qwen3 GPU tests on it (it changes gemv_residual_kv, q_norm_rope,
# q_norm_rope_from_table and kv_norm_rope_write_rows: row norms broadcast
# back without shared memory),
# then decode A/B against the default set (gemv_residual_kv 90 -> 80
# registers, 5 -> 6 programs per SM at f16), pp 18, tg 128, two rounds.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
T="QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/rows QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
env $T timeout 200 build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*DecodeGemv*:*Rope*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 gpu tests (rows set) rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 360 $AB --models qwen3-0.6b,qwen3-4b,qwen3-8b --pp 18 --tg 128 --rounds 2 --reps 1 --variant base=$K --variant rows=$C/rows --out $OUT/ab-decode-rows.jsonl > $OUT/ab-decode-rows.log 2>&1; echo "ab decode rc=$?" >> $OUT/summary.txt
