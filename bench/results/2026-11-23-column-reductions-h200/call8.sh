#!/bin/bash
# Call 8: short-context attention choices re-measured with column
# reductions (tg 128): 16 shares instead of 8, the grouped kernel from
# position 0, and the chained attention + output projection (--chain).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 240 $AB --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 2 --reps 1 --variant new=$K --variant s16=$K:--attention-splits,16 --variant grouped=$K:--attention-grouped-from,0 --variant chain=$K:--chain --out $OUT/ab-short.jsonl > $OUT/ab-short.log 2>&1; echo "ab short rc=$?" >> $OUT/summary.txt
