cat $1/summary.txt; tail -2 $1/qwen3-gpu-tests.txt 2>/dev/null
for f in $1/ab-*.jsonl; do echo "== $(basename $f)"; python3 -c "
import json,sys
for l in open('$f'):
    r=json.loads(l)
    if r.get('kind')=='copy': print('copy %.2f TB/s'%(r['bytes_per_s']/1e12))
    if r.get('kind')=='decode_ab': print(r['variant'], r['round'], r['model'], r['pp'], r['tg'], round(r['decode_tok_s']['median'],1))
"; done
