#!/bin/bash
# Call 7: what the host round trip between decode steps costs (measurement hack: the token read back every 64th step only), f16 tg 128 / 512.
R=$PWD
PY=/opt/torch/.venv/bin/python3
cd bench/qwen3
timeout 300 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128,512 --rounds 2 --reps 1 --variant base=$R/cmpdata/base --variant nosync=$R/cmpdata/base@$R/cmpdata/qwen3-run-nosync.sh --out $OUT/ab-sync.jsonl > $OUT/ab-sync.log 2>&1; echo "ab sync rc=$?" >> $OUT/summary.txt
