#!/bin/bash
# Call 2: frozen preloads issued before vs after the grid wait (same code shape), and where a 4B / 0.6B step goes (--leave-out).
R=$PWD
PY=/opt/torch/.venv/bin/python3
cd bench/qwen3
t0=$(date +%s)
timeout 280 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128 --rounds 2 --reps 1 --variant base=$R/cmpdata/base --variant pre4=$R/cmpdata/pre4 --variant pre4late=$R/cmpdata/pre4late --out $OUT/ab-late.jsonl > $OUT/ab-late.log 2>&1; echo "ab late rc=$?" >> $OUT/summary.txt
t1=$(date +%s); echo "late $((t1-t0)) s" >> $OUT/summary.txt
B=$R/cmpdata/base
timeout 200 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 1 --reps 1 --variant base=$B --variant attn=$B:--leave-out,decode_attention --variant qkv=$B:--leave-out,gemv_rms --variant gateup=$B:--leave-out,gemv_swiglu --variant o=$B:--leave-out,gemv_residual_kv --variant down=$B:--leave-out,gemv_residual__ --variant head=$B:--leave-out,gemv__ --out $OUT/leave-out.jsonl > $OUT/leave-out.log 2>&1; echo "leave-out rc=$?" >> $OUT/summary.txt
t2=$(date +%s); echo "leave-out $((t2-t1)) s" >> $OUT/summary.txt
