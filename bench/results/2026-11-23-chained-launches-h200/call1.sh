#!/bin/bash
# Call 1: the decode attention and the output projection as one chained kernel against two launches, same binaries and kernel set.
# (qwen3-run then chained by default and took --no-chain; it now takes --chain: swap the variants' flags to repeat it.)
R=$PWD
PY=/opt/torch/.venv/bin/python3
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
t0=$(date +%s)
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 120 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime rc=$?" >> $OUT/summary.txt
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 200 build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 rc=$?" >> $OUT/summary.txt
t1=$(date +%s); echo "tests $((t1-t0)) s" >> $OUT/summary.txt
cd bench/qwen3
timeout 300 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128,512 --rounds 2 --reps 1 --variant nochain=$K:--no-chain --variant chain=$K --out $OUT/ab-f16.jsonl > $OUT/ab-f16.log 2>&1; echo "ab f16 rc=$?" >> $OUT/summary.txt
t2=$(date +%s); echo "f16 $((t2-t1)) s" >> $OUT/summary.txt
cd $R
QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 60 compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*Qwen3EngineDtype*GreedyDecode*' > $OUT/racecheck-engine.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
