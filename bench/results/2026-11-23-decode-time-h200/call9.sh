#!/bin/bash
# Call 9: decode lookahead diagnosis: the pinned read-back and event wait alone (nothing queued ahead) against the plain read-back and against lookahead, tg 2048 and 128.
R=$PWD
PY=/opt/torch/.venv/bin/python3
cd bench/qwen3
K=$R/build/models/qwen3/kernels
timeout 300 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b --tg 2048,128 --rounds 1 --reps 1 --variant sync=$K:--no-lookahead --variant event=$K@$R/cmpdata/qwen3-run-noahead.sh --variant ahead=$K --out $OUT/ab-diag.jsonl > $OUT/ab-diag.log 2>&1; echo "ab diag rc=$?" >> $OUT/summary.txt
