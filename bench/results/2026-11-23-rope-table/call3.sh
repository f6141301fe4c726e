#!/bin/bash
# Call 3: time to first token, five variants interleaved (ab.py, two
# rounds of three repetitions): base, --rope-table, --fused-swiglu-gemm,
# both, and both on the rows-in-registers set (cmpdata/rows, as in call 2);
# Qwen3-8B and 4B at 2048 prompt tokens. Same carry as call 1 (checkpoints
# from call 2 in /tmp/qb on the same lease, else made here).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
V="--variant base=$K --variant rope=$K:--rope-table --variant fused=$K:--fused-swiglu-gemm --variant both=$K:--rope-table,--fused-swiglu-gemm --variant bothrows=$C/rows:--rope-table,--fused-swiglu-gemm"
timeout 540 $AB --models qwen3-8b,qwen3-4b --pp 2048 --tg 4 --rounds 2 --reps 3 $V --out $OUT/ab-ttft-pp2048.jsonl > $OUT/ab-ttft-pp2048.log 2>&1; echo "ab pp2048 rc=$?" >> $OUT/summary.txt
