#!/bin/bash
# Call 6: the partials [heads, S, HD] (column reductions in the merges)
# for the grouped attention only (gsh: the tree at "Grouped decode
# attention's partials [heads, S, HD] again") and for both families (new:
# the build tree), against the session's start (base). GPU tests of the
# tree first. Long contexts (4B pp 4096; 0.6B and 8B tg 8192) and tg 128.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
V="--variant base=$C/base@$C/base/qwen3-run --variant gsh=$C/gsh@$C/gsh/qwen3-run --variant new=$K"
timeout 120 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 $V --out $OUT/ab-4b-pp4096.jsonl > $OUT/ab-4b-pp4096.log 2>&1; echo "ab 4b pp4096 rc=$?" >> $OUT/summary.txt
timeout 120 $AB --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 2 --reps 1 $V --out $OUT/ab-tg128.jsonl > $OUT/ab-tg128.log 2>&1; echo "ab tg128 rc=$?" >> $OUT/summary.txt
timeout 90 $AB --models qwen3-0.6b --tg 8192 --rounds 1 --reps 1 $V --out $OUT/ab-0.6b-tg8192.jsonl > $OUT/ab-0.6b-tg8192.log 2>&1; echo "ab 0.6b tg8192 rc=$?" >> $OUT/summary.txt
timeout 230 $AB --models qwen3-8b --tg 8192 --rounds 1 --reps 1 --variant base=$C/base@$C/base/qwen3-run --variant new=$K --out $OUT/ab-8b-tg8192.jsonl > $OUT/ab-8b-tg8192.log 2>&1; echo "ab 8b tg8192 rc=$?" >> $OUT/summary.txt
