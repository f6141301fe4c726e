#!/usr/bin/env python3
"""Prefill benchmark, Grout's protocol: pp sweep (128, 512, 2048, 8192
prompt tokens) with 36 generated; time to first token (the prefill and the
first pick, as qwen3-run's prefill_ms), prefill tok/s, decode tok/s and
request tok/s with median and IQR. Random weights at the real shapes.

    python3 bench/qwen3/prefill.py --configs DIR --tokenizer DIR \\
        --qwen3-run build/bin/qwen3-run --kernels build/models/qwen3/kernels
"""
import argparse

import common

ap = argparse.ArgumentParser()
common.add_checkpoint_args(ap, work="/tmp/qwen3-bench")
ap.add_argument("--kernels", required=True)
ap.add_argument("--pp", default="128,512,2048,8192")
ap.add_argument("--tg", type=int, default=36)
ap.add_argument("--reps", type=int, default=3)
args = ap.parse_args()

common.emit(args.out, kind="env", bench="prefill", **common.environment())
for name, d, cfg, nparam, streamed, kvpp in common.checkpoints(args):
    for pp in [int(p) for p in args.pp.split(",")]:
        ids = common.prompt_ids(pp, seed=pp)
        j = common.run(args.qwen3_run, args.kernels, d, ids, args.tg, args.reps, warmup=2)
        runs = j["runs"]
        common.emit(args.out, kind="prefill", model=name, dtype=args.dtype, pp=pp, tg=args.tg,
                    ttft_ms=common.stats([r["prefill_ms"] for r in runs]),
                    prefill_tok_s=common.stats([pp * 1000.0 / r["prefill_ms"] for r in runs]),
                    decode_tok_s=common.stats([r["decode_tok_s"] for r in runs]),
                    request_tok_s=common.stats([r["request_tok_s"] for r in runs]))
