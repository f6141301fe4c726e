#!/usr/bin/env python3
"""Decode A/B on one machine: variants (a kernel set and qwen3-run flags each)
measured on the same random-weight checkpoint, in interleaved rounds, so a
comparison does not ride on machine-to-machine noise and each checkpoint is
made once (decode.py makes it again per invocation). Protocol as decode.py:
prompt of 18 tokens, greedy, a warm-up generation then `--reps` runs,
decode-phase tok/s median (and the time to first token, for prefill A/Bs
at a long --pp), the roofline and copy bandwidth beside each.

    python3 bench/qwen3/ab.py --configs DIR --tokenizer DIR \\
        --qwen3-run build/bin/qwen3-run --models qwen3-0.6b,qwen3-8b \\
        --tg 128,8192 --rounds 2 \\
        --variant base=OLD_KERNELS_DIR \\
        --variant s32=build/models/qwen3/kernels:--attention-splits,32 \\
        --out ab.jsonl

A variant is NAME=KERNELS_DIR[:FLAG,FLAG,...][@QWEN3_RUN] (its flags go to
qwen3-run, split at commas; `\\,` is a comma inside one, as in
`--leave-out,a\\,b`; @QWEN3_RUN runs that variant on its own binary instead of
--qwen3-run, for an engine change: e.g. the base commit's binary beside its
kernel set).
One line per figure on stdout and in --out (JSON lines).
"""
import argparse

import common

ap = argparse.ArgumentParser()
common.add_checkpoint_args(ap, work="/tmp/qwen3-ab")
ap.add_argument("--variant", action="append", required=True,
                help="NAME=KERNELS_DIR[:FLAG,FLAG,...][@QWEN3_RUN]")
ap.add_argument("--pp", default="18", help="prompt lengths, comma-separated")
ap.add_argument("--tg", default="128")
ap.add_argument("--reps", type=int, default=2)
ap.add_argument("--rounds", type=int, default=2)
args = ap.parse_args()

variants = []
for v in args.variant:
    name, sep, rest = v.partition("=")
    rest, at, binary = rest.partition("@")
    kernels, _, flags = rest.partition(":")
    if not name or not sep or not kernels or (at and not binary):
        ap.error(f"--variant {v!r}: expected NAME=KERNELS_DIR[:FLAG,FLAG,...][@QWEN3_RUN]")
    split = [f.replace("\0", ",") for f in flags.replace("\\,", "\0").split(",")]
    variants.append((name, kernels, [f for f in split if f],
                     binary or args.qwen3_run))

common.emit(args.out, kind="env", bench="decode_ab", **common.environment())
bw = common.copy_bandwidth()
common.emit(args.out, kind="copy", bytes_per_s=bw)
pps = [int(p) for p in args.pp.split(",")]
for model, d, cfg, nparam, streamed, kvpp in common.checkpoints(args):
    for rnd in range(args.rounds):
        for pp, tg in [(p, int(t)) for p in pps for t in args.tg.split(",")]:
            ids = common.prompt_ids(pp)
            for name, kernels, flags, binary in variants:
                j = common.run(binary, kernels, d, ids, tg, args.reps, extra=flags)
                common.emit(args.out, kind="decode_ab", variant=name, round=rnd,
                            model=model, dtype=args.dtype, pp=pp, tg=tg, flags=flags,
                            decode_tok_s=common.stats([r["decode_tok_s"] for r in j["runs"]]),
                            ttft_ms=common.stats([r["prefill_ms"] for r in j["runs"]]),
                            roofline_tok_s=bw / (streamed + kvpp * (pp + tg / 2)),
                            copy_bytes_per_s=bw)
