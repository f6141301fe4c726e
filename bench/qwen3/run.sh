#!/usr/bin/env bash
# On the GPU machine: the Qwen3 benchmarks and their peers in one run.
#   bench/qwen3/run.sh PHASE DATA_DIR OUT_DIR
# PHASE: decode (tg sweep, profiles, cold start), prefill (pp sweep), peers
# (transformers' decode, eager and static+compiled, via DATA_DIR/hf_decode.py
# from ../shared/peers, and its time to first token), or all. DATA_DIR holds
# configs/ and tokenizer/ (a copy of ../shared/qwen3). Each phase appends
# JSON lines to OUT_DIR/<phase>.jsonl; bench/qwen3/report.py makes the tables
# and the plot. MODELS, DTYPE, REPS override the defaults.
set -euo pipefail
phase="$1"; data="$(cd "$2" && pwd)"; mkdir -p "$3"; out="$(cd "$3" && pwd)"
root="$(cd "$(dirname "$0")/../.." && pwd)"
py="${PYTHON:-python3}"
models="${MODELS:-qwen3-0.6b,qwen3-4b,qwen3-8b}"
dtype="${DTYPE:-f16}"; reps="${REPS:-3}"
mkdir -p "$out"
common=(--configs "$data/configs" --tokenizer "$data/tokenizer" --qwen3-run "$root/build/bin/qwen3-run"
        --kernels "$root/build/models/qwen3/kernels" --models "$models" --dtype "$dtype" --reps "$reps")
cd "$root/bench/qwen3"
if [ "$phase" = decode ] || [ "$phase" = all ]; then
  # With the prefill phase next, its checkpoints are reused (not written
  # again); prefill.py removes them.
  keep=(); [ "$phase" = all ] && keep=(--keep-checkpoints)
  "$py" decode.py "${common[@]}" "${keep[@]}" --out "$out/decode.jsonl"
fi
if [ "$phase" = prefill ] || [ "$phase" = all ]; then
  "$py" prefill.py "${common[@]}" --out "$out/prefill.jsonl"
fi
if [ "$phase" = peers ] || [ "$phase" = all ]; then
  "$py" hf_prefill.py --configs "$data/configs" --models "$models" --pp "${PEER_PP:-512,2048}" \
    --out "$out/peers.jsonl"
  names=$(echo "$models" | sed 's/qwen3-//g; s/b/B/g; s/,/ /g')
  [ -f "$data/hf_decode.py" ] && "$py" "$data/hf_decode.py" $names | grep '^{' >> "$out/peers.jsonl"
fi
