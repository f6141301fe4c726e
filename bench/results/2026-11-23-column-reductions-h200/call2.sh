#!/bin/bash
# Call 2: why the join lost (4B pp 4096: 300 against 345.5 tok/s in call 1).
# ncu of the grouped kernel (and the old merge) at 4096 positions; the join's
# head loop unrolled, pipelined (the next head's partials loaded before this
# head's sums) and empty (stores zeros: timing only) against call 1's.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
$PY -c "import json,random; random.seed(0); json.dump([random.randrange(151643) for _ in range(4096)], open('/tmp/ids.json','w'))"
M=/tmp/qb/qwen3-4b.json-f16
ls /tmp/qb >> $OUT/summary.txt
for v in base new unroll pipe nojoin; do
  KK=$C/$v; B=$R/build/bin/qwen3-run
  [ $v = new ] && KK=$K
  [ $v = base ] && B=$C/base/qwen3-run
  timeout 100 ncu --kernel-name regex:"grouped_decode_attention|attention_merge|gemv_residual" --launch-skip 216 --launch-count 6 --section SpeedOfLight --section LaunchStats $B --model $M --prompt-ids /tmp/ids.json --max-new-tokens 8 --ignore-eos --json --kernels $KK --max-seq-len 4200 --no-graph > $OUT/ncu-$v.txt 2>&1; echo "ncu $v rc=$?" >> $OUT/summary.txt
done
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 200 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant base=$C/base@$C/base/qwen3-run --variant new=$K --variant unroll=$C/unroll --variant pipe=$C/pipe --variant nojoin=$C/nojoin --out $OUT/ab-4b-pp4096.jsonl > $OUT/ab-4b-pp4096.log 2>&1; echo "ab 4b pp4096 rc=$?" >> $OUT/summary.txt
