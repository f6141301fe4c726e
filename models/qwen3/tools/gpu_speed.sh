#!/usr/bin/env bash
# On the GPU machine: batch-1 decode speed of qwen3-run at real Qwen3 shapes
# (decode_speed.py: copy bandwidth, tok/s, roofline fraction, profile), one
# sampled run, then transformers' eager and static-cache compiled decode
# (../shared/peers/hf_decode.py, copied into DATA_DIR) in the same run.
#   models/qwen3/tools/gpu_speed.sh DATA_DIR DTYPE config ...
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
data="$1"; dt="$2"; shift 2
py="${PYTHON:-python3}"
out="${OUT:-/tmp/qwen3-speed-out}"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
peers=()
for cfg in "$@"; do
  (cd "$root/models/qwen3/tools" && "$py" decode_speed.py --config "$data/configs/$cfg.json" \
    --tokenizer "$data/tokenizer" --dtype "$dt" --qwen3-run "$root/build/bin/qwen3-run" \
    --kernels "$root/build/models/qwen3/kernels" --tg 128,512 2>/dev/null | grep '^{') \
    | tee -a "$out/speed.jsonl"
  ck="/tmp/qwen3-speed/$cfg.json-$dt"
  "$root/build/bin/qwen3-run" --model "$ck" --prompt "Write a short story about a robot." \
    --max-new-tokens 256 --ignore-eos --sample --temperature 0.6 --top-k 20 --top-p 0.95 \
    --seed 1 --json --max-seq-len 4096 --kernels "$root/build/models/qwen3/kernels" \
    | "$py" -c "import json,sys; j=json.load(sys.stdin); print(json.dumps({'kind':'ours_sampled','config':'$cfg','dtype':'$dt','decode_tok_s':j['decode_tok_s']}))" \
    | tee -a "$out/speed.jsonl"
  rm -rf "$ck"
  case "$cfg" in qwen3-0.6b) peers+=(0.6B);; qwen3-4b) peers+=(4B);; qwen3-8b) peers+=(8B);; esac
done
if [ -f "$data/hf_decode.py" ] && [ ${#peers[@]} -gt 0 ]; then
  "$py" "$data/hf_decode.py" "${peers[@]}" 2>/dev/null | grep '^{' | tee -a "$out/peers.jsonl"
fi
