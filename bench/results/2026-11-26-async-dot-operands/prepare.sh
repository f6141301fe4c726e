#!/bin/bash
# Prepares cmpdata/ (untracked; listed in .git/info/exclude and carried) for
# call 1, on the build machine, from the repository root, after a build:
#   configs, tokenizer  copies of ../shared/qwen3
#   head     the kernel set of the session's start (23a7128's codegen), f16:
#            the prompt attention's K/V loads guarded slot by slot (the
#            in-bounds proof could not see through cdiv); pass its directory
#            as $1 (built before the IndexSystem change)
#   async    async-dot-operands=1 (both dtypes: the GPU tests run on it)
#   async3   async-dot-operands=1 and prefill_attention capped at 168
#            registers (min_programs_per_sm(3)), f16
# The default set (build/models/qwen3/kernels) is the in-bounds proof
# alone: K/V loads unguarded, staged through registers as before.
set -e
head=$1
variant=build/models/qwen3/tilec-kernel-variant.sh
rm -rf cmpdata && mkdir -p cmpdata
cp -r ../shared/qwen3/configs cmpdata/configs
cp -r ../shared/qwen3/tokenizer cmpdata/tokenizer
mkdir -p cmpdata/head && cp "$head"/qwen3_f16.cubin "$head"/qwen3_f16.json cmpdata/head/
$variant cmpdata/async --pipeline-options=async-dot-operands=1
src=$(mktemp -d)
cp -r models/qwen3/kernels/. "$src"
python3 - "$src/attention.tile" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
anchor = "    grid(num_tiles(o, 1), num_tiles(o, 0));\n"
i = s.index("kernel prefill_attention"); j = s.index(anchor, i) + len(anchor)
open(p, "w").write(s[:j] + "    min_programs_per_sm(3);\n" + s[j:])
PY
QWEN3_KERNEL_SOURCE=$src/qwen3.tile $variant "$src/out" --pipeline-options=async-dot-operands=1
mkdir -p cmpdata/async3 && cp "$src"/out/qwen3_f16.cubin "$src"/out/qwen3_f16.json cmpdata/async3/
rm -rf "$src" cmpdata/async/*.so
du -sh cmpdata
