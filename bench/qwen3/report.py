#!/usr/bin/env python3
"""Tables (Markdown) and a plot (PNG: decode tok/s vs generated length for
ours, the peers and the roofline) from the JSON lines of bench/qwen3/run.sh.

    python3 bench/qwen3/report.py RESULTS_DIR   # decode/prefill/peers.jsonl
"""
import json
import os
import sys

d = sys.argv[1]


def read(name):
    p = os.path.join(d, name)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []


dec, pre, peers = read("decode.jsonl"), read("prefill.jsonl"), read("peers.jsonl")
copy = next((r["bytes_per_s"] for r in dec if r["kind"] == "copy"), 0)
env = next((r for r in dec if r["kind"] == "env"), {})
short = {"0.6B": "qwen3-0.6b", "4B": "qwen3-4b", "8B": "qwen3-8b"}
hf = {}
for r in peers:
    if r["kind"] in ("hf_eager", "hf_static_compiled") and "tok_s" in r:
        hf[(short.get(r["model"], r["model"]), r["kind"])] = r["tok_s"]
hf_ttft = {(r["model"], r["pp"]): r["ttft_ms"]["median"] for r in peers if r["kind"] == "hf_prefill"}
out = []
p = out.append
p(f"GPU: {env.get('nvidia_smi', '?')}; torch {env.get('torch', '?')}; "
  f"copy bandwidth {copy / 1e12:.2f} TB/s (device to device, read + write, same run)\n")
p("| model | tg | decode tok/s (IQR) | request tok/s | roofline tok/s | of roofline | transformers static+compiled / eager (tg 128) |")
p("|---|---|---|---|---|---|---|")
for r in dec:
    if r["kind"] != "decode":
        continue
    m, s = r["model"], r["decode_tok_s"]
    peer = f"{hf.get((m, 'hf_static_compiled'), 0):.1f} / {hf.get((m, 'hf_eager'), 0):.1f}" if r["tg"] == 128 else ""
    p(f"| {m} | {r['tg']} | {s['median']:.1f} ({s['q1']:.1f}-{s['q3']:.1f}) | "
      f"{r['request_tok_s']['median']:.1f} | {r['roofline_tok_s']:.1f} | "
      f"{100 * s['median'] / r['roofline_tok_s']:.1f}% | {peer} |")
p("\n| model | pp | TTFT ms (IQR) | prefill tok/s | decode tok/s | request tok/s | transformers TTFT ms |")
p("|---|---|---|---|---|---|---|")
for r in pre:
    if r["kind"] != "prefill":
        continue
    t = r["ttft_ms"]
    peer = hf_ttft.get((r["model"], r["pp"]))
    p(f"| {r['model']} | {r['pp']} | {t['median']:.1f} ({t['q1']:.1f}-{t['q3']:.1f}) | "
      f"{r['prefill_tok_s']['median']:.0f} | {r['decode_tok_s']['median']:.1f} | "
      f"{r['request_tok_s']['median']:.1f} | {'' if peer is None else f'{peer:.1f}'} |")
for r in dec:
    if r["kind"] == "cold_start":
        p(f"\nCold start {r['model']}: launch to first token {r['launch_to_first_token_ms']:.0f} ms, "
          f"of which reading + uploading weights {r['weights_ms']:.0f} ms "
          f"(overhead {r['launch_to_first_token_ms'] - r['weights_ms']:.0f} ms)")
for r in dec:
    if r["kind"] != "profile":
        continue
    cb = r.get("copy_bytes_per_s") or copy
    p(f"\nProfile {r['model']} (one decode step at position {r['position']}, each launch timed alone):\n")
    p("| kernel | launches | ms | GB/s | of copy |")
    p("|---|---|---|---|---|")
    tot_ms = tot_b = 0
    for k in r["kernels"]:
        gbs = k["bytes"] / (k["ms"] * 1e-3) / 1e9 if k["ms"] else 0
        tot_ms += k["ms"]; tot_b += k["bytes"]
        p(f"| {k['kernel']} | {k['launches']} | {k['ms']:.3f} | {gbs:.0f} | {100 * gbs * 1e9 / cb:.1f}% |")
    p(f"| total | | {tot_ms:.3f} | {tot_b / (tot_ms * 1e-3) / 1e9:.0f} | {100 * tot_b / (tot_ms * 1e-3) / cb:.1f}% |")
text = "\n".join(out) + "\n"
open(os.path.join(d, "tables.md"), "w").write(text)
print(text)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("report.py: no matplotlib (apt-get install python3-matplotlib): no plot", file=sys.stderr)
    sys.exit(0)
models = sorted({r["model"] for r in dec if r["kind"] == "decode"}, key=lambda m: float(m.split("-")[1][:-1]))
fig, axes = plt.subplots(1, len(models), figsize=(5 * len(models), 4), squeeze=False)
for ax, m in zip(axes[0], models):
    rs = [r for r in dec if r["kind"] == "decode" and r["model"] == m]
    tg = [r["tg"] for r in rs]
    ax.plot(tg, [r["decode_tok_s"]["median"] for r in rs], "o-", label="tile (ours)")
    ax.plot(tg, [r["roofline_tok_s"] for r in rs], "k--", label="roofline (copy BW)")
    for kind, style, label in [("hf_static_compiled", "s:", "transformers static+compiled (tg 128)"),
                               ("hf_eager", "^:", "transformers eager (tg 128)")]:
        if (m, kind) in hf:
            ax.plot([tg[0]], [hf[(m, kind)]], style, label=label)
    ax.set_xscale("log", base=2)
    ax.set_title(f"{m} fp16, pp 18, batch 1")
    ax.set_xlabel("generated tokens")
    ax.set_ylabel("decode tok/s")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
fig.suptitle(f"{env.get('nvidia_smi', '')}, copy {copy / 1e12:.2f} TB/s")
fig.tight_layout()
fig.savefig(os.path.join(d, "decode.png"), dpi=110)
print("wrote", os.path.join(d, "decode.png"))
