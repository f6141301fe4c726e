#!/usr/bin/env bash
# Runs openai_client.cjs against qwen3-serve on the tiny model (CPU). The
# openai package is installed by scripts/setup.sh into NPM_DIR; without
# node or the package this test reports itself skipped (exit 77).
#     openai_client_test.sh QWEN3_SERVE MODEL_DIR KERNELS_DIR NPM_DIR
set -euo pipefail
serve=$1 model=$2 kernels=$3 npm=$4
if ! command -v node >/dev/null || [[ ! -d $npm/node_modules/openai ]]; then
  echo "skipped: needs node and the openai package in $npm (scripts/setup.sh installs them)"
  exit 77
fi
log=$(mktemp)
"$serve" --model "$model" --device cpu --kernels "$kernels" --port 0 --max-seq-len 512 \
  --served-model-name tiny 2>"$log" &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 600); do
  grep -q ' at http://' "$log" && break
  kill -0 $pid 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
url=$(grep -o 'http://[^ ]*/v1' "$log")
NODE_PATH=$npm/node_modules node "$(dirname "$0")/openai_client.cjs" "$url"
