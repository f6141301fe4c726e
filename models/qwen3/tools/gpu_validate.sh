#!/usr/bin/env bash
# On the GPU machine, with the binaries built here carried in: every Qwen3
# test on the GPU (the kernels against fp64, the device sampler against
# exact probabilities, the tiny models against transformers' golden
# tokens/logits, the batched and tensor-parallel engines), the runtime's
# GPU tests, then compare_hf.py at real Qwen3 shapes in bf16 and f16.
#   models/qwen3/tools/gpu_validate.sh DATA_DIR [config ...]
# DATA_DIR holds configs/ and tokenizer/ (a copy of ../shared/qwen3).
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
data="$1"; shift
py="${PYTHON:-python3}"
out="${OUT:-/tmp/qwen3-validate}"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS="$root/build/models/qwen3/kernels" \
       QWEN3_TEST_FIXTURES="$root/models/qwen3/test/fixtures"
"$root/build/models/qwen3/Qwen3Tests" 2>&1 \
  | grep -E '^\[  (PASSED|FAILED) |OK \]|FAILED \]|Failure' | tee "$out/qwen3-tests-cuda.txt"
TILE_RUNTIME_TEST_KERNELS="$root/build/runtime/test/kernels.json" \
  "$root/build/runtime/TileRuntimeGpuTests" 2>&1 | grep -E '^\[  (PASSED|FAILED) |FAILED \]' \
  | tee "$out/runtime-tests-cuda.txt"
cfgs=("$@"); [ ${#cfgs[@]} -eq 0 ] && cfgs=(qwen3-0.6b qwen3-4b)
for cfg in "${cfgs[@]}"; do
  for dt in bf16 f16; do
    (cd "$root/models/qwen3/tools" && "$py" compare_hf.py --config "$data/configs/$cfg.json" \
      --tokenizer "$data/tokenizer" --dtype "$dt" --qwen3-run "$root/build/bin/qwen3-run" \
      --kernels "$root/build/models/qwen3/kernels" 2>/dev/null | grep '^{') | tee -a "$out/compare.jsonl"
  done
done
