#!/usr/bin/env bash
# Regenerates the dialect reference (docs/dialect/) from the .td files; the
# test suite fails while the committed copy is stale.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

tile_setup
cmake -E copy "$TILE_BUILD"/docs/dialect/*.md "$TILE_ROOT/docs/dialect/"
tile_log "docs/dialect/ updated"
