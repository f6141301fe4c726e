#!/bin/bash
# Call 9: the split tiers on the settled set: forced 16 shares, and the keys-per-share threshold (default 32) at 16 and 64.
R=$PWD
PY=/opt/torch/.venv/bin/python3
B=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
cd bench/qwen3
timeout 330 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b,qwen3-8b --tg 128,512 --rounds 1 --reps 1 --variant base=$B --variant s16=$B:--attention-splits,16 --variant k16=$B:--attention-keys-per-share,16 --variant k64=$B:--attention-keys-per-share,64 --out $OUT/ab-tiers.jsonl > $OUT/ab-tiers.log 2>&1; echo "ab rc=$?" >> $OUT/summary.txt
