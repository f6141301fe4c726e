#!/usr/bin/env python3
"""Where a decode step's time goes, launch family by launch family, inside
the replayed graph: the step with every launch, then with one family left
out (`qwen3-run --leave-out`, whose output is then wrong), in interleaved
rounds on one random-weight checkpoint per model. A family's cost is the
step's time minus the step without it; beside it, the bytes the family
must stream and their time at the copy bandwidth of the same run, so the
difference is what the family costs beyond its bytes (launch boundaries,
dependent latency, tails). Protocol as decode.py: prompt of --pp tokens,
greedy, a warm-up generation then --reps runs, median.

    python3 bench/qwen3/step_time.py --configs DIR --tokenizer DIR \\
        --qwen3-run build/bin/qwen3-run --kernels build/models/qwen3/kernels \\
        --models qwen3-0.6b,qwen3-1.7b --dtype bf16 --out step.jsonl

One JSON line per measurement and per family (stdout and --out), then a
table per model on stderr.
"""
import argparse
import statistics
import sys

import common

# Launch families of the single-sequence decode step (EngineForward.cpp's
# decodeLayers and forward), as kernel-name prefixes for --leave-out.
FAMILIES = [
    ("qkv", "QKV GEMV with the input norm (gemv_rms)", "gemv_rms"),
    ("attention", "attention, its shares merged by a ticket join (decode_attention)",
     "decode_attention"),
    ("o", "output GEMV + residual + K/V write (gemv_residual_kv)", "gemv_residual_kv"),
    ("gate_up", "gate/up GEMV with the norm and SwiGLU (gemv_swiglu)", "gemv_swiglu"),
    ("down", "down GEMV + residual (gemv_residual)", "gemv_residual__"),
    ("lm_head", "LM head (gemv)", "gemv__"),
    ("small", "embedding, final norm, argmax, position (one each a step)",
     "embed_sumsq,rmsnorm,argmax_partial,argmax_final,advance_position"),
]


def family_bytes(cfg, ctx):
    """The bytes each family must move per step at 16 bits (weights, the KV
    rows read, the activations ignored)."""
    H, I, L = cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers
    hd = cfg.head_dim
    nq, kvw = cfg.num_attention_heads * hd, cfg.num_key_value_heads * hd
    return {
        "qkv": 2 * L * H * (nq + 2 * kvw),
        "attention": 2 * L * 2 * ctx * kvw,
        "o": 2 * L * nq * H,
        "gate_up": 2 * L * H * 2 * I,
        "down": 2 * L * I * H,
        "lm_head": 2 * cfg.vocab_size * H,
        "small": 0,
    }


ap = argparse.ArgumentParser()
common.add_checkpoint_args(ap, work="/tmp/qwen3-step-time")
ap.add_argument("--kernels", required=True)
ap.add_argument("--pp", type=int, default=18)
ap.add_argument("--tg", type=int, default=128)
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--rounds", type=int, default=2)
args = ap.parse_args()

common.emit(args.out, kind="env", bench="step_time", **common.environment())
bw = common.copy_bandwidth()
common.emit(args.out, kind="copy", bytes_per_s=bw)
ids = common.prompt_ids(args.pp)
for model, d, cfg, nparam, streamed, kvpp in common.checkpoints(args):
    variants = [("all", [])] + [(k, ["--leave-out", p]) for k, _, p in FAMILIES]
    steps = {k: [] for k, _ in variants}
    for rnd in range(args.rounds):
        for name, flags in variants:
            j = common.run(args.qwen3_run, args.kernels, d, ids, args.tg, args.reps, extra=flags)
            tok_s = common.stats([r["decode_tok_s"] for r in j["runs"]])["median"]
            steps[name].append(1e6 / tok_s)
            common.emit(args.out, kind="step_time_run", model=model, dtype=args.dtype,
                        left_out=name, round=rnd, pp=args.pp, tg=args.tg, tok_s=tok_s,
                        step_us=1e6 / tok_s)
    med = {k: statistics.median(v) for k, v in steps.items()}
    nbytes = family_bytes(cfg, args.pp + args.tg / 2)
    L = cfg.num_hidden_layers
    step = med["all"]
    roof = 1e6 * (streamed + kvpp * (args.pp + args.tg / 2)) / bw
    rows = []
    for k, label, _ in FAMILIES:
        cost = step - med[k]
        at_copy = 1e6 * nbytes[k] / bw
        rows.append((k, label, cost, at_copy))
        common.emit(args.out, kind="step_time_family", model=model, dtype=args.dtype,
                    family=k, what=label, cost_us=cost, bytes=nbytes[k],
                    at_copy_us=at_copy, layers=L, step_us=step, roofline_step_us=roof,
                    copy_bytes_per_s=bw)
    print(f"\n{model} {args.dtype}: step {step:.1f} us ({1e6 / step:.1f} tok/s), "
          f"roofline {roof:.1f} us, copy {bw / 1e12:.2f} TB/s, {L} layers", file=sys.stderr)
    print(f"{'family':10} {'cost us':>9} {'at copy':>9} {'over':>8} {'per layer over':>15}",
          file=sys.stderr)
    for k, label, cost, at_copy in rows:
        print(f"{k:10} {cost:9.1f} {at_copy:9.1f} {cost - at_copy:8.1f} "
              f"{(cost - at_copy) / (L if k not in ('lm_head', 'small') else 1):15.2f}",
              file=sys.stderr)
    print(f"{'sum':10} {sum(r[2] for r in rows):9.1f} {sum(r[3] for r in rows):9.1f}",
          file=sys.stderr)
