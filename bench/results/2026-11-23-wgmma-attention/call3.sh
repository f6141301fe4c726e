#!/bin/bash
# Call 3: where the prompt attention's time goes, default set against the
# wgmma-dots set: ncu of one 8B layer's prefill_attention at 2048 tokens
# (stall reasons per issued instruction, and the SASS source page's
# per-instruction stall samples).
R=$PWD
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
PY=/opt/torch/.venv/bin/python3
$PY -c "import json,random; random.seed(0); json.dump([random.randrange(151643) for _ in range(2048)], open('/tmp/ids2048.json','w'))"
cd bench/qwen3
# the 8B checkpoint (a fresh lease has none): one short A/B run makes it
timeout 150 $PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-8b --pp 18 --tg 4 --rounds 1 --reps 1 --variant base=$K --out $OUT/make-checkpoint.jsonl > $OUT/make-checkpoint.log 2>&1
cd $R
for v in base wg; do
  KK=$K; [ $v = wg ] && KK=$C/wg
  timeout 150 ncu -o /tmp/rep-$v --kernel-name regex:prefill_attention --launch-skip 4 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section Occupancy --section ComputeWorkloadAnalysis --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio build/bin/qwen3-run --model /tmp/qb/qwen3-8b.json-f16 --prompt-ids /tmp/ids2048.json --max-new-tokens 2 --ignore-eos --kernels $KK --max-seq-len 2100 --no-graph > $OUT/ncu-run-$v.txt 2>&1; echo "ncu $v rc=$?" >> $OUT/summary.txt
  ncu -i /tmp/rep-$v.ncu-rep --print-details all > $OUT/ncu-$v.txt 2>&1
  ncu -i /tmp/rep-$v.ncu-rep --page source --csv --print-source sass > /tmp/src-$v.csv 2>&1
  $PY - /tmp/src-$v.csv > $OUT/ncu-$v-sass-top.tsv <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
hdr = next(i for i, r in enumerate(rows) if any('Source' == c for c in r))
h = rows[hdr]; body = rows[hdr + 1:]
print("\t".join(h))
key = next((i for i, c in enumerate(h) if c.startswith('Warp Stall Sampling (All')), None)
if key is None:
    for r in body[:400]: print("\t".join(r))
else:
    def f(x):
        try: return float(x.replace(',', ''))
        except: return 0.0
    tot = sum(f(r[key]) for r in body)
    print("total samples", tot)
    for r in sorted(body, key=lambda r: -f(r[key]))[:80]: print("\t".join(r))
PYEOF
done
