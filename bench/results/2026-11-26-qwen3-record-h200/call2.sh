#!/bin/bash
# Record call A (issue 8): ours, f16, one lease. Decode tg sweep at pp 18
# (tg 128, 512, 2048, 8192; 2 runs after a warm-up; profile; cold start),
# then the prompt sweep (pp 128, 512, 2048, 8192 at tg 36) on the same
# checkpoints, then bf16 decode at tg 128 (0.6B, 4B).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
cd bench/qwen3
A="--configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --kernels $K --work /tmp/qb"
timeout 380 $PY decode.py $A --reps 2 --keep-checkpoints --out $OUT/decode.jsonl > $OUT/decode.log 2>&1; echo "decode rc=$?" | tee -a $OUT/gpu.txt
timeout 90 $PY prefill.py $A --reps 3 --keep-checkpoints --out $OUT/prefill.jsonl > $OUT/prefill.log 2>&1; echo "prefill rc=$?" | tee -a $OUT/gpu.txt
timeout 90 $PY decode.py $A --dtype bf16 --models qwen3-0.6b,qwen3-4b --tg 128 --reps 2 --out $OUT/decode-bf16.jsonl > $OUT/decode-bf16.log 2>&1; echo "decode bf16 rc=$?" | tee -a $OUT/gpu.txt
grep -h '"kind": "decode"' $OUT/decode.jsonl $OUT/decode-bf16.jsonl | $PY -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(r['model'], r['dtype'], r['tg'], round(r['decode_tok_s']['median'],1), 'roof', round(r['roofline_tok_s'],1))"
grep -h '"kind": "prefill"' $OUT/prefill.jsonl | $PY -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(r['model'], r['pp'], {k: (v['median'] if isinstance(v, dict) and 'median' in v else v) for k, v in r.items() if 'ttft' in k})"
