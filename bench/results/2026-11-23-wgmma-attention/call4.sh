#!/bin/bash
# Call 4: the wgmma-dots set again, with every operand pinned before
# wgmma.fence (call 3's ncu showed a wait after each wgmma of S = Q K^T:
# ptxas serialized the group, whose zero accumulator was written after the
# fence). Tests, memcheck, TTFT A/B (8B and 4B at 2048, 8B at 8192),
# decode A/B at 4096 positions (4B), ncu of one layer's prompt attention.
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
T="QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$C/wg QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
env $T timeout 120 build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*' > $OUT/qwen3-gpu-tests-wg.txt 2>&1; echo "qwen3 gpu tests (wg set) rc=$?" >> $OUT/summary.txt
grep -q "FAILED" $OUT/qwen3-gpu-tests-wg.txt && exit 0
env $T timeout 120 compute-sanitizer --tool memcheck build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillAttention*:*DecodeAttention*grouped*' > $OUT/memcheck-wg.txt 2>&1; echo "memcheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
timeout 200 $AB --models qwen3-8b,qwen3-4b --pp 2048 --tg 4 --rounds 2 --reps 3 --variant base=$K --variant wg=$C/wg --out $OUT/ab-ttft-2048.jsonl > $OUT/ab-ttft-2048.log 2>&1; echo "ab ttft 2048 rc=$?" >> $OUT/summary.txt
timeout 120 $AB --models qwen3-8b --pp 8192 --tg 4 --rounds 2 --reps 2 --variant base=$K --variant wg=$C/wg --out $OUT/ab-ttft-8192.jsonl > $OUT/ab-ttft-8192.log 2>&1; echo "ab ttft 8192 rc=$?" >> $OUT/summary.txt
timeout 90 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 2 --reps 1 --variant base=$K --variant wg=$C/wg --out $OUT/ab-decode-4096.jsonl > $OUT/ab-decode-4096.log 2>&1; echo "ab decode 4096 rc=$?" >> $OUT/summary.txt
cd $R
$PY -c "import json,random; random.seed(0); json.dump([random.randrange(151643) for _ in range(2048)], open('/tmp/ids2048.json','w'))"
timeout 100 ncu --kernel-name regex:prefill_attention --launch-skip 4 --launch-count 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio build/bin/qwen3-run --model /tmp/qb/qwen3-8b.json-f16 --prompt-ids /tmp/ids2048.json --max-new-tokens 2 --ignore-eos --kernels $C/wg --max-seq-len 2100 --no-graph > $OUT/ncu-wg.txt 2>&1; echo "ncu rc=$?" >> $OUT/summary.txt
