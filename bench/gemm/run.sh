#!/usr/bin/env bash
# On the GPU machine: the .tile prefill GEMM (tile-gemm-bench, built here)
# and cuBLAS through PyTorch (the peer script, cublas_kernels.py, from
# PEERS_DIR) in one run, one JSON line per figure, into OUT/gemm.jsonl.
#   bench/gemm/run.sh BUILD_DIR PEERS_DIR OUT [M,M,...]
set -euo pipefail
build="$1"; peers="$2"; out="$3"; tokens="${4:-512,2048,8192}"
python="${PYTHON:-/opt/torch/.venv/bin/python3}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
for dtype in f16; do
  "$build/runtime/tile-gemm-bench" "$build/models/qwen3/kernels/qwen3_$dtype.json" gemm,gemm__BN_128 "$tokens" \
    | tee -a "$out/gemm.jsonl"
done
"$python" "$peers/cublas_kernels.py" | tee -a "$out/gemm.jsonl"
