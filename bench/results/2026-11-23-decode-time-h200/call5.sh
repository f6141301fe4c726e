#!/bin/bash
# Call 5: the QKV and gate/up GEMVs at four rows per program (0.6B: one wave instead of 1.3 / 1.9), f16 tg 128.
R=$PWD
PY=/opt/torch/.venv/bin/python3
cd bench/qwen3
t0=$(date +%s)
timeout 400 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128 --rounds 2 --reps 1 --variant base=$R/cmpdata/base --variant r4=$R/cmpdata/r4 --variant gu4=$R/cmpdata/gu4 --variant both=$R/cmpdata/both --out $OUT/ab-rows.jsonl > $OUT/ab-rows.log 2>&1; echo "ab rows rc=$?" >> $OUT/summary.txt
t1=$(date +%s); echo "rows $((t1-t0)) s" >> $OUT/summary.txt
