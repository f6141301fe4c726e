#!/bin/bash
# Call 2: ncu of one 8B layer's prompt attention at 2048 tokens, the
# session's start (head: registers, guarded loads) against the default set
# (cp.async one block ahead); same checkpoint (made by ab.py, one TTFT run
# each), clocks as ncu locks them.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
cd bench/qwen3
timeout 150 $PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-8b --pp 2048 --tg 4 --rounds 1 --reps 3 --variant head=$C/head --variant async=$K --out $OUT/ab-ttft-2048.jsonl > $OUT/ab.log 2>&1; echo "ab rc=$?" >> $OUT/summary.txt
cd $R
$PY -c "import json,random; random.seed(0); json.dump([random.randrange(151643) for _ in range(2048)], open('/tmp/ids2048.json','w'))"
for v in head async; do
  k=$C/head; [ $v = async ] && k=$K
  timeout 100 ncu --kernel-name regex:prefill_attention --launch-skip 4 --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats build/bin/qwen3-run --model /tmp/qb/qwen3-8b.json-f16 --prompt-ids /tmp/ids2048.json --max-new-tokens 2 --ignore-eos --kernels $k --max-seq-len 2100 --no-graph > $OUT/ncu-$v.txt 2>&1; echo "ncu $v rc=$?" >> $OUT/summary.txt
done
cat $OUT/summary.txt
grep -h "Duration\|Registers Per\|Achieved Occupancy\|Theoretical Occupancy\|Static Shared\|Compute (SM) Throughput\|Memory Throughput" $OUT/ncu-head.txt $OUT/ncu-async.txt
