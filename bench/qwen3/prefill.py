#!/usr/bin/env python3
"""Prefill benchmark, Grout's protocol: pp sweep (128, 512, 2048, 8192
prompt tokens) with 36 generated; time to first token (the prefill and the
first pick, as qwen3-run's prefill_ms), prefill tok/s, decode tok/s and
request tok/s with median and IQR. Random weights at the real shapes.

    python3 bench/qwen3/prefill.py --configs DIR --tokenizer DIR \\
        --qwen3-run build/bin/qwen3-run --kernels build/models/qwen3/kernels
"""
import argparse
import shutil

import common

ap = argparse.ArgumentParser()
ap.add_argument("--configs", required=True)
ap.add_argument("--tokenizer", required=True)
ap.add_argument("--qwen3-run", required=True)
ap.add_argument("--kernels", required=True)
ap.add_argument("--models", default="qwen3-0.6b,qwen3-4b,qwen3-8b")
ap.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
ap.add_argument("--pp", default="128,512,2048,8192")
ap.add_argument("--tg", type=int, default=36)
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--work", default="/tmp/qwen3-bench")
ap.add_argument("--out", default="")
ap.add_argument("--keep-checkpoints", action="store_true",
                help="leave each random checkpoint under --work, where the next "
                     "bench script with the same --work reuses it")
args = ap.parse_args()

common.emit(args.out, kind="env", bench="prefill", **common.environment())
for name in args.models.split(","):
    d, cfg, nparam, streamed, kvpp = common.checkpoint(
        f"{args.configs}/{name}.json", args.dtype, args.tokenizer, args.work)
    for pp in [int(p) for p in args.pp.split(",")]:
        ids = common.prompt_ids(pp, seed=pp)
        j = common.run(args.qwen3_run, args.kernels, d, ids, args.tg, args.reps, warmup=2)
        runs = j["runs"]
        common.emit(args.out, kind="prefill", model=name, dtype=args.dtype, pp=pp, tg=args.tg,
                    ttft_ms=common.stats([r["prefill_ms"] for r in runs]),
                    prefill_tok_s=common.stats([pp * 1000.0 / r["prefill_ms"] for r in runs]),
                    decode_tok_s=common.stats([r["decode_tok_s"] for r in runs]),
                    request_tok_s=common.stats([r["request_tok_s"] for r in runs]))
    if not args.keep_checkpoints:
        shutil.rmtree(d, ignore_errors=True)
