#!/bin/bash
# Call 10: the chained attention + output projection (--chain) with the
# last part counting itself done without a barrier or fence, against the
# unchained step and call 8's chain (gsh: the tree before the change).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
timeout 200 $T build/models/qwen3/Qwen3Tests --gtest_filter='*Qwen3Engine*:*Chain*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 tests rc=$?" >> $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 100 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime tests rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 240 $AB --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 2 --reps 1 --variant new=$K --variant chain=$K:--chain --variant chain_old=$C/gsh:--chain --out $OUT/ab-chain.jsonl > $OUT/ab-chain.log 2>&1; echo "ab chain rc=$?" >> $OUT/summary.txt
