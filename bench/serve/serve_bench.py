#!/usr/bin/env python3
"""qwen3-serve under load (docs/serving.md): requests of `--pp` random
prompt ids and `--tg` generated tokens (ignore_eos, greedy), streamed over
loopback at each concurrency of `--concurrency`; per request the time to
first token and the gaps between tokens as the client sees them; per
concurrency the aggregate output tok/s. Then prefix caching: `--prefix-requests`
concurrent requests that share a `--prefix-len`-token system prompt (each
with its own 32-token question) against as many whose system prompts all
differ, time to first token p50 of each. Each concurrent client is a
process of its own, so that no client's parsing delays another's
timestamps (threads of one interpreter take turns at its lock, which put
milliseconds of their own into the gaps). Beside it, in the same run,
qwen3-run's batch-1 decode on the same checkpoint and prompt length, and
the copy bandwidth. Random weights at the real shapes, made here.

    python3 bench/serve/serve_bench.py --configs DIR --tokenizer DIR \\
        --qwen3-run build/bin/qwen3-run --qwen3-serve build/bin/qwen3-serve \\
        --kernels build/models/qwen3/kernels --models qwen3-8b --dtype bf16 \\
        --concurrency 1,4 --out serve.jsonl
"""
import argparse
import http.client
import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qwen3"))
import common  # noqa: E402

ap = argparse.ArgumentParser()
common.add_checkpoint_args(ap, work="/tmp/qwen3-bench")
ap.add_argument("--qwen3-serve", required=True)
ap.add_argument("--kernels", required=True)
ap.add_argument("--pp", type=int, default=512)
ap.add_argument("--tg", type=int, default=256)
ap.add_argument("--concurrency", default="1,4")
ap.add_argument("--requests-per-client", type=int, default=8)
ap.add_argument("--prefix-requests", type=int, default=32)
ap.add_argument("--prefix-len", type=int, default=2000)
ap.add_argument("--tensor-parallel", type=int, default=1,
                help="qwen3-serve's and qwen3-run's --tensor-parallel")
ap.add_argument("--serve-arg", action="append", default=[],
                help="an extra qwen3-serve argument (repeat it: --serve-arg=--kv-cache-memory "
                     "--serve-arg=4GiB)")
ap.add_argument("--prefill-chunk", type=int, default=None,
                help="qwen3-serve's --prefill-chunk (its default if not given)")
args = ap.parse_args()


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, round(p * (len(v) - 1))))]


def scrape(port):
    """The server's histograms: {(name, kind): {bound: cumulative count}},
    with each series' sum, from GET /metrics."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    c.close()
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or "_bucket{" not in line and "_sum" not in line:
            continue
        key, value = line.rsplit(" ", 1)
        labels = dict(kv.split("=", 1) for kv in key[key.find("{") + 1:-1].split(",")) \
            if "{" in key else {}
        labels = {k: v.strip('"') for k, v in labels.items()}
        name = key.split("{")[0]
        if name.endswith("_bucket"):
            le = labels.pop("le")
            series = out.setdefault((name[:-len("_bucket")], labels.get("kind", "")), {})
            series[float("inf") if le == "+Inf" else float(le)] = float(value)
        elif name.endswith("_sum"):
            out.setdefault((name[:-len("_sum")], labels.get("kind", "")), {})["sum"] = float(value)
    return out


def histogram_delta(before, after, name, kind=""):
    """A histogram series' samples between two scrapes: count, mean and the
    50th and 99th percentiles (ms) interpolated within their buckets."""
    a, b = after.get((name, kind), {}), before.get((name, kind), {})
    bounds = sorted(k for k in a if k != "sum")
    cum = [a[k] - b.get(k, 0) for k in bounds]
    n = cum[-1] if cum else 0
    if n <= 0:
        return {"count": 0}
    def q(p):
        target, lo, prev = p * n, 0.0, 0.0
        for bound, c in zip(bounds, cum):
            if c >= target:
                hi = bound if bound != float("inf") else lo
                return 1e3 * (lo + (hi - lo) * (target - prev) / max(c - prev, 1e-9))
            lo, prev = bound, c
        return 1e3 * lo
    return {"count": n, "mean_ms": 1e3 * (a.get("sum", 0) - b.get("sum", 0)) / n,
            "p50_ms": q(0.5), "p99_ms": q(0.99)}


def stream_request(port, ids, out, tg=None):
    """One streamed completion; its arrival times per token chunk."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    body = json.dumps({"prompt": ids, "max_tokens": tg or args.tg, "temperature": 0,
                       "ignore_eos": True, "stream": True,
                       "stream_options": {"include_usage": True}})
    t0 = time.perf_counter()
    c.request("POST", "/v1/completions", body=body, headers={"Content-Type": "application/json"})
    r = c.getresponse()
    times, usage, buf = [], None, b""
    while True:
        chunk = r.read1(65536)
        if not chunk:
            break
        buf += chunk
        while b"\n\n" in buf:
            event, buf = buf.split(b"\n\n", 1)
            data = event[len(b"data: "):]
            if data == b"[DONE]":
                continue
            j = json.loads(data)
            if j.get("usage"):
                usage = j["usage"]
            elif j["choices"] and j["choices"][0]["text"]:
                times.append(time.perf_counter())
    c.close()
    out.append({"t0": t0, "times": times, "usage": usage})


def load_client(job):
    """One client of a concurrency level: its requests one after another."""
    port, k = job
    out = []
    for i in range(args.requests_per_client):
        stream_request(port, common.prompt_ids(args.pp, seed=1 + k * 100 + i), out)
    return out


def prefix_client(job):
    """One request of the prefix-caching runs."""
    port, k, shared = job
    system = common.prompt_ids(args.prefix_len, seed=7 if shared else 1000 + k)
    question = common.prompt_ids(32, seed=5000 + k)
    out = []
    stream_request(port, system + question, out, tg=16)
    return out


def run_clients(fn, jobs):
    """fn over jobs, each in a process of its own, all at once (a pool
    would let one worker take two jobs one after the other); their
    results, concatenated."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=lambda j=j: queue.put(fn(j))) for j in jobs]
    for p in procs:
        p.start()
    results = [r for _ in procs for r in queue.get()]
    for p in procs:
        p.join()
    return results


common.emit(args.out, kind="env", bench="serve", **common.environment())
bw = common.copy_bandwidth()
common.emit(args.out, kind="copy", bytes_per_s=bw)
for name, d, cfg, nparam, streamed, kvpp in common.checkpoints(args):
    ids = common.prompt_ids(args.pp)
    tp = ["--tensor-parallel", str(args.tensor_parallel)] if args.tensor_parallel > 1 else []
    j = common.run(args.qwen3_run, args.kernels, d, ids, args.tg, 3, extra=tp)
    common.emit(args.out, kind="qwen3_run", model=name, tensor_parallel=args.tensor_parallel,
                pp=args.pp, tg=args.tg,
                decode_tok_s=common.stats([r["decode_tok_s"] for r in j["runs"]]),
                ttft_ms=common.stats([r["prefill_ms"] for r in j["runs"]]),
                copy_bytes_per_s=bw)
    levels = [int(c) for c in args.concurrency.split(",")]
    batch = max(levels + [args.prefix_requests])
    seq = max(args.pp + args.tg, args.prefix_len + 32 + 16) + 64
    srv = subprocess.Popen([args.qwen3_serve, "--model", d, "--kernels", args.kernels,
                            "--port", "0", "--max-seq-len", str(seq),
                            "--max-queue", "1024", "--max-batch", str(batch)] + tp +
                           args.serve_arg +
                           ([] if args.prefill_chunk is None
                            else ["--prefill-chunk", str(args.prefill_chunk)]),
                           stderr=subprocess.PIPE, text=True)
    port = None
    for line in srv.stderr:
        print("qwen3-serve:", line.rstrip(), flush=True)
        if " at http://" in line:
            port = int(line.split(" at http://")[1].split("/")[0].rsplit(":", 1)[1])
            break
    if port is None:
        raise SystemExit("qwen3-serve did not start")
    threading.Thread(target=lambda: [print("qwen3-serve:", x.rstrip(), flush=True)
                                     for x in srv.stderr], daemon=True).start()
    warm = []
    stream_request(port, ids, warm)  # graphs captured, clocks up
    if not warm[0]["times"]:
        raise SystemExit("the warm-up request returned no text: " + json.dumps(warm[0]["usage"]))
    for conc in levels:
        before = scrape(port)
        t0 = time.perf_counter()
        results = run_clients(load_client, [(port, k) for k in range(conc)])
        wall = time.perf_counter() - t0
        after = scrape(port)
        # The server's own view of the same gaps, and its engine calls: what
        # of a gap is the step and what the work around it.
        server = {"itl": histogram_delta(before, after, "qwen3_inter_token_latency_seconds")}
        for kind in ("batch", "mixed", "single", "prefill"):
            server["step_" + kind] = histogram_delta(before, after, "qwen3_step_seconds", kind)
        tokens = sum(r["usage"]["completion_tokens"] for r in results)
        ttft = [(r["times"][0] - r["t0"]) * 1e3 for r in results]
        itl = [(b - a) * 1e3 for r in results for a, b in zip(r["times"], r["times"][1:])]
        decode = [(len(r["times"]) - 1) / (r["times"][-1] - r["times"][0]) for r in results]
        common.emit(args.out, kind="serve", model=name, tensor_parallel=args.tensor_parallel,
                    serve_args=args.serve_arg,
                    prefill_chunk=args.prefill_chunk, pp=args.pp, tg=args.tg,
                    concurrency=conc, requests=len(results), output_tok_s=tokens / wall,
                    per_request_decode_tok_s=common.stats(decode),
                    ttft_ms={"p50": pct(ttft, 0.5), "p99": pct(ttft, 0.99)},
                    itl_ms={"p50": pct(itl, 0.5), "p99": pct(itl, 0.99)},
                    server=server, copy_bytes_per_s=bw)
    # Prefix caching: one shared system prompt, then (as the baseline) a
    # different one per request; each request's own question after it.
    for shared in (True, False) if args.prefix_requests > 0 else ():
        results = run_clients(prefix_client,
                              [(port, k, shared) for k in range(args.prefix_requests)])
        ttft = [(r["times"][0] - r["t0"]) * 1e3 for r in results if r["times"]]
        cached = sum(r["usage"]["prompt_tokens_details"]["cached_tokens"] for r in results)
        common.emit(args.out, kind="prefix", model=name, prefill_chunk=args.prefill_chunk, shared=shared,
                    prefix_len=args.prefix_len, requests=len(results),
                    cached_tokens=cached,
                    ttft_ms={"p50": pct(ttft, 0.5), "p99": pct(ttft, 0.99)},
                    copy_bytes_per_s=bw)
    srv.send_signal(2)
    srv.wait(60)
