#!/bin/bash
# Prints a call's summary, test tails and A/B figures: show.sh DIR
cat $1/summary.txt; tail -2 $1/qwen3-gpu-tests.txt $1/runtime-gpu-tests.txt 2>/dev/null
for f in $1/ab-*.jsonl; do echo "== $(basename $f)"; python3 -c "
import json
for l in open('$f'):
    r = json.loads(l)
    if r.get('kind') == 'copy': print('copy %.2f TB/s' % (r['bytes_per_s'] / 1e12))
    if r.get('kind') == 'decode_ab':
        print(r['variant'], r['round'], r['model'], 'pp', r['pp'], 'tg', r['tg'],
              'ttft %.2f ms' % r['ttft_ms']['median'], 'decode %.1f tok/s' % r['decode_tok_s']['median'])
"; done
