#!/bin/bash
# Call 1: grouped decode attention with fewer warps per program (W = 1: 16-row
# query tile, 12 programs per SM; W = 2: 32 rows, 6 per SM; both 16-key
# blocks, which keeps the loads' registers under the cap) against the
# kernel set's (W = 4, 64 rows, 32-key blocks, 3 per SM), at long contexts
# (prompt 1024 / 4096, tg 128) on Qwen3-4B, whose attention is Qwen3-8B's
# (8 KV heads of 128, G = 4, 36 layers). Plus ncu of the grouped kernel.
R=$PWD
PY=/opt/torch/.venv/bin/python3
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
for v in w1 w2; do
  QWEN3_TEST_DEVICE=cuda QWEN3_TEST_KERNELS=$R/cmpdata/$v QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures timeout 60 build/models/qwen3/Qwen3Tests --gtest_filter='*DecodeAttentionKernel*grouped_f16*' > $OUT/tests-$v.txt 2>&1; echo "tests $v rc=$?" >> $OUT/summary.txt
done
cd bench/qwen3
G0=--attention-grouped-from,0
for pp in 4096 1024; do
timeout 240 $PY ab.py --configs $R/cmpdata/configs --tokenizer $R/cmpdata/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints --models qwen3-4b --pp $pp --tg 128 --rounds 2 --reps 1 \
  --variant base=$K --variant base_g=$K:$G0 --variant base_s16=$K:$G0,--attention-splits,16 \
  --variant w1_s32=$R/cmpdata/w1:$G0,--attention-splits,32 --variant w1_s64=$R/cmpdata/w1:$G0,--attention-splits,64 --variant w1_s128=$R/cmpdata/w1:$G0,--attention-splits,128 \
  --variant w2_s32=$R/cmpdata/w2:$G0,--attention-splits,32 --variant w2_s64=$R/cmpdata/w2:$G0,--attention-splits,64 \
  --out $OUT/ab-pp$pp.jsonl > $OUT/ab-pp$pp.log 2>&1; echo "ab pp$pp rc=$?" >> $OUT/summary.txt
done
cd $R
echo '[1]' > /tmp/ids.json
$PY -c "import json,random; random.seed(0); json.dump([random.randrange(151643) for _ in range(4096)], open('/tmp/ids.json','w'))"
M=/tmp/qb/qwen3-4b.json-f16
for v in base w1; do
  KK=$K; F=""; [ $v = w1 ] && KK=$R/cmpdata/w1 && F="--attention-grouped-from 0 --attention-splits 128"
  timeout 150 ncu --kernel-name regex:grouped_decode_attention --launch-skip 72 --launch-count 2 --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats --section MemoryWorkloadAnalysis build/bin/qwen3-run --model $M --prompt-ids /tmp/ids.json --max-new-tokens 8 --ignore-eos --json --kernels $KK --max-seq-len 4200 --no-graph $F > $OUT/ncu-$v.txt 2>&1; echo "ncu $v rc=$?" >> $OUT/summary.txt
done
