#!/bin/bash
# Prepares cmpdata/ for the calls here, on the build machine, from the
# repository root: prepare.sh [SET...] copies the shared configs and
# tokenizer and builds the named variant kernel sets, removing any other
# (cmpdata/ travels whole with every call; the carry limit is 64 MB):
#   rows  rows-in-registers=1 (calls 2, 3)
#   roll  rope-roll.diff (call 5)
#   lpt   attention-longest-first.diff (call 6)
#   exp2  prefill-attention-exp2.diff (call 6)
#   diag  prefill-attention-diagonal-mask.diff (call 7)
#   attn  prefill-attention-all-three.diff: lpt, exp2 and diag (call 7)
# (After call 7 the all-three diff is in the tree: the four attention
# sets apply to models/qwen3/kernels as of commit 6c18154 or earlier.)
set -e
here=bench/results/2026-11-23-rope-table
variant=build/models/qwen3/tilec-kernel-variant.sh
mkdir -p cmpdata
rm -rf cmpdata/configs cmpdata/tokenizer
cp -r ../shared/qwen3/configs cmpdata/configs
cp -r ../shared/qwen3/tokenizer cmpdata/tokenizer
for old in cmpdata/*/; do
  name=$(basename "$old")
  case " configs tokenizer $* " in *" $name "*) ;; *) rm -rf "$old" ;; esac
done
for set in "$@"; do
  rm -rf "cmpdata/$set"
  case $set in
    rows) $variant "cmpdata/$set" --pipeline-options=rows-in-registers=1 ;;
    roll|lpt|exp2|diag|attn)
      diff=$here/$( case $set in roll) echo rope-roll ;; lpt) echo attention-longest-first ;;
                   exp2) echo prefill-attention-exp2 ;; diag) echo prefill-attention-diagonal-mask ;;
                   attn) echo prefill-attention-all-three ;; esac ).diff
      src=$(mktemp -d)
      cp -r models/qwen3/kernels/. "$src"
      patch -s -d "$src" -p1 < "$diff"
      QWEN3_KERNEL_SOURCE=$src/qwen3.tile $variant "cmpdata/$set"
      rm -rf "$src" ;;
    *) echo "prepare.sh: unknown set '$set' (rows, roll, lpt, exp2, diag, attn)" >&2; exit 1 ;;
  esac
done
du -sh cmpdata
