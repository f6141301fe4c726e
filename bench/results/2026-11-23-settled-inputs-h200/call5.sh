#!/bin/bash
# Call 5: what the step's tail launches and the attention cost now (--leave-out on the settled set, tg 128).
R=$PWD
PY=/opt/torch/.venv/bin/python3
B=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
cd bench/qwen3
timeout 300 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 2 --reps 1 --variant base=$B --variant norm=$B:--leave-out,rmsnorm --variant argmax=$B:--leave-out,argmax --variant advance=$B:--leave-out,advance_position --variant embed=$B:--leave-out,embed --variant attn=$B:--leave-out,decode_attention --out $OUT/leave-out.jsonl > $OUT/leave-out.log 2>&1; echo "leave-out rc=$?" >> $OUT/summary.txt
