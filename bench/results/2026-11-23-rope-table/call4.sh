#!/bin/bash
# Call 4: 8B at 512 and 8192 prompt tokens (base and both options), then
# per-kernel profiles of an 8B prefill of 2048 tokens (the first since
# session 9), base and with both options. Same carry as call 1.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 300 $AB --models qwen3-8b --pp 512,8192 --tg 4 --rounds 2 --reps 3 --variant base=$K --variant both=$K:--rope-table,--fused-swiglu-gemm --out $OUT/ab-ttft-8b.jsonl > $OUT/ab-ttft-8b.log 2>&1; echo "ab 8b rc=$?" >> $OUT/summary.txt
$PY -c "import common, json; json.dump(common.prompt_ids(2048, seed=2048), open('/tmp/ids2048.json', 'w'))"
for flags in "" "--rope-table --fused-swiglu-gemm"; do
  name=$(echo "${flags:-base}" | tr -d ' -')
  timeout 90 $R/build/bin/qwen3-run --model /tmp/qb/qwen3-8b.json-f16 --prompt-ids /tmp/ids2048.json --max-new-tokens 4 --ignore-eos --kernels $K --max-seq-len 2100 --profile $flags > $OUT/profile-8b-pp2048-$name.txt 2>&1; echo "profile $name rc=$?" >> $OUT/summary.txt
done
