#!/usr/bin/env bash
# Installs what is missing, builds into build/, and runs the whole CPU test
# suite (lit regression tests and GoogleTest unit tests) through ctest.
# Exits non-zero on any failure.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tile_setup
tile_log "testing"
# GPU tests (label gpu) run on a GPU machine: scripts/gpu-test.sh.
ctest --test-dir "$TILE_BUILD" --output-on-failure -j "$(nproc)" -LE gpu
tile_log "all tests passed"
