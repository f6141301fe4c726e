"""Throughput and latency against concurrency from serve_bench.py's JSON
lines (one file per qwen3-serve configuration, labelled by its
--prefill-chunk) and hf_batch_peer.py's: output tok/s, and inter-token
latency p50 / p99, one line per configuration.
    python3 plot.py OUT.png SERVE.jsonl [SERVE.jsonl ...] [--peer PEER.jsonl]"""
import argparse, json

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("serve", nargs="+")
ap.add_argument("--peer", default="")
args = ap.parse_args()

series = {}  # label -> [(concurrency, tok/s, itl p50, itl p99)]
gpu = ""
for path in args.serve:
    for line in open(path):
        r = json.loads(line)
        if r.get("kind") == "env":
            gpu = r.get("gpu", gpu)
        if r.get("kind") != "serve":
            continue
        chunk = r.get("prefill_chunk")
        label = "qwen3-serve" + ("" if chunk is None else
                                 (", whole prompts" if chunk == 0 else f", prefill chunks of {chunk}"))
        series.setdefault(label, []).append((r["concurrency"], r["output_tok_s"],
                                             r["itl_ms"]["p50"], r["itl_ms"]["p99"]))
if args.peer:
    for line in open(args.peer):
        r = json.loads(line)
        if r.get("kind") == "hf_batch" and "output_tok_s" in r:
            itl = r.get("itl_ms", {})
            series.setdefault("transformers generate_batch (" + r["attn_implementation"] + ")",
                              []).append((r["concurrency"], r["output_tok_s"],
                                          itl.get("p50"), itl.get("p99")))
fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
for label, pts in sorted(series.items()):
    pts.sort()
    xs = [p[0] for p in pts]
    a.plot(xs, [p[1] for p in pts], marker="o", label=label)
    if all(p[2] is not None for p in pts):
        line, = b.plot(xs, [p[2] for p in pts], marker="o", label=label + " p50")
        b.plot(xs, [p[3] for p in pts], marker="x", linestyle="--", color=line.get_color(),
               label=label + " p99")
for ax in (a, b):
    ax.set_xscale("log", base=2)
    ax.set_xlabel("concurrent requests")
    ax.grid(True, alpha=0.3)
a.set_ylabel("output tok/s")
b.set_ylabel("inter-token latency (ms)")
b.set_yscale("log")
a.legend(fontsize=7)
b.legend(fontsize=6)
fig.suptitle(f"Qwen3-8B bf16, 512 + 256 tokens per request{', ' + gpu if gpu else ''}")
fig.tight_layout()
fig.savefig(args.out, dpi=110)
