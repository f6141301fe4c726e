#!/bin/bash
# Call 5: the kernel set with wgmma-dots on by default (byte for byte call
# 4's set): every Qwen3 and runtime GPU test, racecheck of the prompt and
# grouped decode attention tests, and TTFT at 2048 and 8192 tokens (8B, 4B)
# beside transformers (SDPA) in the same call.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
env $T timeout 250 build/models/qwen3/Qwen3Tests > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 gpu tests rc=$?" >> $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 120 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime gpu tests rc=$?" >> $OUT/summary.txt
env $T timeout 150 compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillAttention*:*DecodeAttention*grouped_f16*' > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
timeout 150 $PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-8b,qwen3-4b --pp 2048,8192 --tg 4 --rounds 1 --reps 3 --variant ours=$K --out $OUT/ttft-ours.jsonl > $OUT/ttft-ours.log 2>&1; echo "ttft ours rc=$?" >> $OUT/summary.txt
timeout 200 $PY hf_prefill.py --configs $C/configs --models qwen3-8b,qwen3-4b --pp 2048,8192 --reps 3 --out $OUT/ttft-hf.jsonl > $OUT/ttft-hf.log 2>&1; echo "ttft hf rc=$?" >> $OUT/summary.txt
