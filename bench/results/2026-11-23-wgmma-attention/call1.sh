#!/bin/bash
# Call 1 (session 32): session 31's unmeasured rows-in-registers set (its
# Qwen3 GPU tests, decode A/B at tg 128 against the default set), the prompt
# attention's peer (PyTorch SDPA per backend at 8B's shape), and ncu of the
# shipped prefill_attention in an 8B prefill of 2048 tokens.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
H=$R/bench/results/2026-11-23-wgmma-attention
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
env QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/rows QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 200 build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*:*DecodeGemv*:*Rope*' > $OUT/qwen3-gpu-tests-rows.txt 2>&1; echo "qwen3 gpu tests (rows set) rc=$?" >> $OUT/summary.txt
timeout 60 $PY $H/sdpa_peer.py 2048,8192 > $OUT/sdpa-peer.jsonl 2>$OUT/sdpa-peer.err; echo "sdpa rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 330 $AB --models qwen3-0.6b,qwen3-4b,qwen3-8b --pp 18 --tg 128 --rounds 2 --reps 1 --variant base=$K --variant rows=$C/rows --out $OUT/ab-decode-rows.jsonl > $OUT/ab-decode-rows.log 2>&1; echo "ab decode rc=$?" >> $OUT/summary.txt
cd $R
$PY -c "import json,random; random.seed(0); json.dump([random.randrange(151643) for _ in range(2048)], open('/tmp/ids2048.json','w'))"
timeout 120 ncu --kernel-name regex:prefill_attention --launch-skip 4 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SourceCounters --section InstructionStats build/bin/qwen3-run --model /tmp/qb/qwen3-8b.json-f16 --prompt-ids /tmp/ids2048.json --max-new-tokens 2 --ignore-eos --kernels $K --max-seq-len 2100 --no-graph > $OUT/ncu-prefill-attention-8b-2048.txt 2>&1; echo "ncu rc=$?" >> $OUT/summary.txt
