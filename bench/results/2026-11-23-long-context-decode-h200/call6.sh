#!/bin/bash
# Call 6: Qwen3-8B at tg 8192 (prompt 18, f16), the session's start against
# the final set, and tg 2048; each variant on its own qwen3-run as in call 5.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
OLD=$C/qwen3-run-old
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 500 $AB --models qwen3-8b --tg 8192,2048 --rounds 1 --reps 1 --variant base=$C/base@$OLD --variant new=$K --out $OUT/ab-8b.jsonl > $OUT/ab-8b.log 2>&1; echo "ab 8b rc=$?" >> $OUT/summary.txt
