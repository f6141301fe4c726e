#!/bin/bash
# Call 4: column reductions in registers (lowerReduceColumns: each thread
# folds its rows, lanes combine with shuffles, warps through shared
# memory), which the grouped join's [S, HD] sum and decode_attention's
# P V use. GPU tests (runtime and Qwen3), racecheck of the attention kernel
# tests, then against the session's start: Qwen3-4B at a 4096 prompt
# (grouped + join) and tg 128 at 4B and 0.6B (per-head attention, whose
# P V sum is a column reduction).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 100 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime tests rc=$?" >> $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
timeout 120 $T compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*' > $OUT/racecheck-attention.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
B=base=$C/base@$C/base/qwen3-run
timeout 150 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant $B --variant new=$K --out $OUT/ab-4b-pp4096.jsonl > $OUT/ab-4b-pp4096.log 2>&1; echo "ab 4b pp4096 rc=$?" >> $OUT/summary.txt
timeout 150 $AB --models qwen3-4b,qwen3-0.6b --tg 128 --rounds 2 --reps 1 --variant $B --variant new=$K --out $OUT/ab-tg128.jsonl > $OUT/ab-tg128.log 2>&1; echo "ab tg128 rc=$?" >> $OUT/summary.txt
