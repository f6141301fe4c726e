#!/usr/bin/env bash
# The project's main job, end to end: build the toolchain and the Qwen3
# kernel set (every kernel written in .tile, proven race-free and in bounds,
# compiled ahead of time by tilec), then generate text with qwen3-run.
#
#   scripts/demo.sh                      # the committed tiny test model
#   scripts/demo.sh --model DIR [...]    # any Qwen3 checkpoint; flags go to qwen3-run
#
# Runs on the GPU when there is one (a CUDA driver), else on the CPU. The
# tiny model has random weights: its text is noise, but exactly the noise
# transformers produces for it (models/qwen3/test/EngineTest.cpp checks).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tile_setup
device=cpu
if [[ -e /dev/nvidiactl ]] && ldconfig -p 2>/dev/null | grep -q libcuda.so.1; then
  device=cuda
fi
args=("$@")
if ((${#args[@]} == 0)); then
  args=(--model "$TILE_ROOT/models/qwen3/test/fixtures/tiny-bf16"
        --prompt "Hello, how are you?" --max-new-tokens 24)
fi
tile_log "qwen3-run --device $device ${args[*]}"
"$TILE_BUILD/bin/qwen3-run" --device "$device" "${args[@]}"
