#!/bin/bash
# Call 1 (next GPU session; not yet run): the fused gate/up + SwiGLU GEMM.
# Its kernel tests, the engine tests (transformers' logits with it on),
# memcheck and racecheck of the kernel test, then time to first token
# with and without --fused-swiglu-gemm interleaved (ab.py, two rounds),
# and one --profile of an 8B prefill each way (the first per-kernel prefill
# profile since session 9). Carry: build/bin/qwen3-run,
# build/models/qwen3/Qwen3Tests, build/models/qwen3/kernels,
# build/runtime/TileRuntimeGpuTests, build/runtime/test; cmpdata/ holds
# configs/ and tokenizer/ (a copy of ../shared/qwen3).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
T="QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$K QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
env $T timeout 150 build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillGemmSwiglu*:*Attention*:*Qwen3Engine*:*Qwen3Sampling*:*DecodeGemv*:*FoldNorm*:*Rope*:*Prefill*:*Norm*' > $OUT/qwen3-gpu-tests.txt 2>&1; echo "qwen3 gpu tests rc=$?" >> $OUT/summary.txt
TILE_RUNTIME_TEST_KERNELS=$R/build/runtime/test/kernels.json timeout 60 build/runtime/TileRuntimeGpuTests > $OUT/runtime-gpu-tests.txt 2>&1; echo "runtime gpu tests rc=$?" >> $OUT/summary.txt
for tool in memcheck racecheck; do
  env $T timeout 60 compute-sanitizer --tool $tool build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillGemmSwiglu*' > $OUT/$tool-gemm-swiglu.txt 2>&1; echo "$tool rc=$?" >> $OUT/summary.txt
done
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 150 $AB --models qwen3-8b,qwen3-4b --pp 2048 --tg 4 --rounds 2 --reps 3 --variant base=$K --variant fused=$K:--fused-swiglu-gemm --out $OUT/ab-ttft-pp2048.jsonl > $OUT/ab-ttft-pp2048.log 2>&1; echo "ab pp2048 rc=$?" >> $OUT/summary.txt
timeout 100 $AB --models qwen3-8b --pp 512,8192 --tg 4 --rounds 2 --reps 3 --variant base=$K --variant fused=$K:--fused-swiglu-gemm --out $OUT/ab-ttft-8b.jsonl > $OUT/ab-ttft-8b.log 2>&1; echo "ab 8b rc=$?" >> $OUT/summary.txt
$PY -c "import common, json; json.dump(common.prompt_ids(2048, seed=2048), open('/tmp/ids2048.json', 'w'))"
for flag in "" --fused-swiglu-gemm; do
  timeout 60 $R/build/bin/qwen3-run --model /tmp/qb/qwen3-8b.json-f16 --prompt-ids /tmp/ids2048.json --max-new-tokens 4 --ignore-eos --kernels $K --max-seq-len 2100 --profile $flag > $OUT/profile-8b-pp2048${flag:+-fused}.txt 2>&1; echo "profile $flag rc=$?" >> $OUT/summary.txt
done
