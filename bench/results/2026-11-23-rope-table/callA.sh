#!/bin/bash
# Call A (session 31, H200, lending resumed late): call 3 without its rows
# variant and call 4's profiles, in one call on the default kernel set:
# TTFT at 2048 tokens (8B, 4B), base / --rope-table / --fused-swiglu-gemm /
# both interleaved (two rounds of three repetitions), then an 8B --profile
# of a 2048-token prefill, base and both.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
V="--variant base=$K --variant rope=$K:--rope-table --variant fused=$K:--fused-swiglu-gemm --variant both=$K:--rope-table,--fused-swiglu-gemm"
timeout 420 $AB --models qwen3-8b,qwen3-4b --pp 2048 --tg 4 --rounds 2 --reps 3 $V --out $OUT/ab-ttft-pp2048.jsonl > $OUT/ab-ttft-pp2048.log 2>&1; echo "ab pp2048 rc=$?" >> $OUT/summary.txt
$PY -c "import common, json; json.dump(common.prompt_ids(2048, seed=2048), open('/tmp/ids2048.json', 'w'))"
for flags in "" "--rope-table --fused-swiglu-gemm"; do
  name=$(echo "${flags:-base}" | tr -d ' -')
  timeout 60 $R/build/bin/qwen3-run --model /tmp/qb/qwen3-8b.json-f16 --prompt-ids /tmp/ids2048.json --max-new-tokens 4 --ignore-eos --kernels $K --max-seq-len 2100 --profile $flags > $OUT/profile-8b-pp2048-$name.txt 2>&1; echo "profile $name rc=$?" >> $OUT/summary.txt
done
