#!/bin/bash
# Call 3: 4B f16 new vs U=5 caps; bf16 base vs new (3 models).
R=$PWD
PY=/opt/torch/.venv/bin/python3
cd bench/qwen3
t0=$(date +%s)
timeout 150 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-4b --tg 128 --rounds 3 --reps 1 --variant new=$R/build/models/qwen3/kernels --variant cap5=$R/cmpdata/cap5 --out $OUT/ab-cap5-f16.jsonl > $OUT/ab-cap5.log 2>&1; echo "ab cap5 rc=$?" >> $OUT/summary.txt
t1=$(date +%s); echo "cap5 $((t1-t0)) s" >> $OUT/summary.txt
timeout 400 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --dtype bf16 --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128 --rounds 2 --reps 1 --variant base=$R/cmpdata/base --variant new=$R/build/models/qwen3/kernels --out $OUT/ab-bf16.jsonl > $OUT/ab-bf16.log 2>&1; echo "ab bf16 rc=$?" >> $OUT/summary.txt
t2=$(date +%s); echo "bf16 $((t2-t1)) s" >> $OUT/summary.txt
