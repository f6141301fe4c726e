#!/bin/bash
# Call 1: async-dot-operands. GPU tests of the attention and the engines on
# the async set and on the default set (the in-bounds proof change), memcheck
# and racecheck of the prompt and grouped decode attention on the async set;
# TTFT A/B (8B at 2048 and 8192) of head / base / async / async3; decode A/B
# where the grouped kernel runs (4B, 4096 prompt positions).
R=$PWD
PY=/opt/torch/.venv/bin/python3
C=$R/cmpdata
K=$R/build/models/qwen3/kernels
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/summary.txt
F="QWEN3_TEST_DEVICE=cuda QWEN3_TEST_FIXTURES=$R/models/qwen3/test/fixtures"
env $F QWEN3_TEST_KERNELS=$C/async timeout 120 build/models/qwen3/Qwen3Tests --gtest_filter='*Attention*:*Qwen3Engine*' > $OUT/tests-async.txt 2>&1; echo "qwen3 gpu tests (async) rc=$?" >> $OUT/summary.txt
env $F QWEN3_TEST_KERNELS=$K timeout 90 build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillAttention*:*Qwen3Engine*' > $OUT/tests-base.txt 2>&1; echo "qwen3 gpu tests (base) rc=$?" >> $OUT/summary.txt
grep -q "FAILED" $OUT/tests-async.txt && { tail -40 $OUT/tests-async.txt; exit 0; }
env $F QWEN3_TEST_KERNELS=$C/async timeout 100 compute-sanitizer --tool memcheck build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillAttention*:*DecodeAttention*grouped*' > $OUT/memcheck-async.txt 2>&1; echo "memcheck rc=$?" >> $OUT/summary.txt
env $F QWEN3_TEST_KERNELS=$C/async timeout 100 compute-sanitizer --tool racecheck build/models/qwen3/Qwen3Tests --gtest_filter='*PrefillAttention*:*DecodeAttention*grouped_f16*' > $OUT/racecheck-async.txt 2>&1; echo "racecheck rc=$?" >> $OUT/summary.txt
cd bench/qwen3
AB="$PY ab.py --configs $C/configs --tokenizer $C/tokenizer --qwen3-run $R/build/bin/qwen3-run --work /tmp/qb --keep-checkpoints"
V="--variant head=$C/head --variant base=$K --variant async=$C/async --variant async3=$C/async3"
timeout 170 $AB --models qwen3-8b --pp 2048 --tg 4 --rounds 2 --reps 3 $V --out $OUT/ab-ttft-2048.jsonl > $OUT/ab-ttft-2048.log 2>&1; echo "ab ttft 2048 rc=$?" >> $OUT/summary.txt
timeout 90 $AB --models qwen3-8b --pp 8192 --tg 4 --rounds 1 --reps 2 $V --out $OUT/ab-ttft-8192.jsonl > $OUT/ab-ttft-8192.log 2>&1; echo "ab ttft 8192 rc=$?" >> $OUT/summary.txt
timeout 100 $AB --models qwen3-4b --pp 4096 --tg 128 --rounds 1 --reps 1 --variant base=$K --variant async=$C/async --out $OUT/ab-decode-4096.jsonl > $OUT/ab-decode-4096.log 2>&1; echo "ab decode 4096 rc=$?" >> $OUT/summary.txt
cd $R
cat $OUT/summary.txt
grep -h "passed\|FAILED\|ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/tests-*.txt $OUT/memcheck-async.txt $OUT/racecheck-async.txt | head
$PY - $OUT <<'PY'
import json, sys, glob, statistics as st
for f in sorted(glob.glob(sys.argv[1] + "/ab-*.jsonl")):
    rows = [json.loads(l) for l in open(f)]
    copy = [r for r in rows if r.get("kind") == "copy"]
    print(f.split("/")[-1], "copy %.2f TB/s" % (copy[0]["bytes_per_s"] / 1e12) if copy else "")
    by = {}
    for r in rows:
        if r.get("kind") == "decode_ab":
            key = (r["model"], r["pp"], r["variant"])
            by.setdefault(key, []).append((r.get("ttft_ms"), r.get("decode_tok_s")))
    for k, v in by.items():
        print(" ", k, v)
PY
