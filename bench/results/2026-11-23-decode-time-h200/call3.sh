#!/bin/bash
# Call 3: what the per-head decode attention's parts cost in the replayed step (ablated kernel sets, wrong outputs, timing only), and the grouped tier at short contexts.
R=$PWD
PY=/opt/torch/.venv/bin/python3
cd bench/qwen3
t0=$(date +%s)
B=$R/cmpdata/base
timeout 400 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-0.6b,qwen3-4b --tg 128 --rounds 2 --reps 1 --variant base=$B --variant nojoin=$R/cmpdata/abl-nojoin --variant noloop=$R/cmpdata/abl-noloop --variant norope=$R/cmpdata/abl-norope --variant min=$R/cmpdata/abl-min --variant noattn=$B:--leave-out,decode_attention --variant grouped=$B:--attention-grouped-from,0 --variant s16=$B:--attention-splits,16 --out $OUT/ablate.jsonl > $OUT/ablate.log 2>&1; echo "ablate rc=$?" >> $OUT/summary.txt
t1=$(date +%s); echo "ablate $((t1-t0)) s" >> $OUT/summary.txt
echo '[9707, 11, 1246, 525, 498, 30, 358, 1079, 264, 1273, 315, 279, 1849, 13, 576, 3974, 13876, 38835]' > /tmp/p.json
for m in qwen3-0.6b qwen3-4b; do timeout 60 $R/build/bin/qwen3-run --model /tmp/qb/$m.json-f16 --prompt-ids /tmp/p.json --max-new-tokens 64 --ignore-eos --kernels $B --profile > $OUT/profile-$m.txt 2>&1; echo "profile $m rc=$?" >> $OUT/summary.txt; done
