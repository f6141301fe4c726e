#!/bin/bash
# Record call B (issue 8): the peers on the same GPU type, and the GEMMs.
# transformers' time to first token (SDPA, pp 512 / 2048 / 8192), its
# batch-1 decode (eager and static cache + torch.compile, hf_decode.py
# from ../shared/peers), and the prefill GEMMs beside cuBLAS (F.linear).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
PYTHON=$PY timeout 150 bench/gemm/run.sh build $C $OUT/gemm > $OUT/gemm.log 2>&1; echo "gemm rc=$?" | tee -a $OUT/gpu.txt
cd bench/qwen3
timeout 150 $PY hf_prefill.py --configs $C/configs --pp 512,2048,8192 --reps 3 --out $OUT/peers.jsonl > $OUT/hf-prefill.log 2>&1; echo "hf prefill rc=$?" | tee -a $OUT/gpu.txt
timeout 270 $PY $C/hf_decode.py 0.6B 4B 8B > $OUT/hf-decode.log 2>&1; echo "hf decode rc=$?" | tee -a $OUT/gpu.txt
grep '^{' $OUT/hf-decode.log >> $OUT/peers.jsonl
tail -5 $OUT/gemm/gemm.jsonl; cat $OUT/peers.jsonl | cut -c1-200
