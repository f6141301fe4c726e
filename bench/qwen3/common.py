"""Shared pieces of the Qwen3 benchmarks (bench/qwen3/decode.py,
prefill.py): the copy bandwidth, random-weight checkpoints at the real
shapes, qwen3-run invocations with --repeat, and median/IQR statistics.
Runs on the GPU machine (PyTorch for the checkpoint and the copy)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models", "qwen3", "tools"))
import random_checkpoint  # noqa: E402
from copy_bandwidth import copy_bandwidth  # noqa: E402,F401 (common.copy_bandwidth)


def emit(out, **kw):
    line = json.dumps(kw)
    print(line, flush=True)
    if out:
        with open(out, "a") as f:
            f.write(line + "\n")


def environment():
    r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                       capture_output=True, text=True)
    return {"gpu": torch.cuda.get_device_name(0), "nvidia_smi": r.stdout.strip(),
            "torch": torch.__version__, "cuda": torch.version.cuda}


def checkpoint(config_path, dtype, tokenizer, work):
    """A random-weight checkpoint at the config's shapes; returns its
    directory, the config, and the bytes a decode step streams besides the
    KV cache (every weight once, the embedding table as one row, plus the
    LM head: the tied table or its own matrix). A checkpoint the same
    scripts already wrote under `work` from the same config, dtype and
    tokenizer is reused (writing an 8B one takes most of a minute of the
    GPU machine's time); its shapes then come from a model on the meta
    device."""
    torch_dtype = torch.bfloat16 if dtype == "bf16" else torch.float16
    d = os.path.join(work, os.path.basename(config_path) + "-" + dtype)
    h = hashlib.sha256()
    for path in [config_path] + [os.path.join(tokenizer, f)
                                 for f in ("tokenizer.json", "tokenizer_config.json")]:
        with open(path, "rb") as f:
            h.update(f.read())
    h.update(dtype.encode())
    key = h.hexdigest()
    marker = os.path.join(d, "bench-checkpoint.key")
    reuse = False
    if os.path.exists(marker):
        with open(marker) as f:
            reuse = f.read() == key
    if reuse:
        config = random_checkpoint.load_config(config_path)
        with torch.device("meta"):
            model = random_checkpoint.Qwen3ForCausalLM(config)
    else:
        model, config, d = random_checkpoint.make(config_path, torch_dtype, d, tokenizer)
        with open(marker, "w") as f:
            f.write(key)
    nparam = sum(p.numel() for p in model.parameters())
    emb = model.model.embed_tokens.weight.numel()
    streamed = (nparam - emb) * 2 + (emb * 2 if config.tie_word_embeddings else 0)
    kv_per_position = 2 * config.num_hidden_layers * config.num_key_value_heads * config.head_dim * 2
    del model
    torch.cuda.empty_cache()
    return d, config, nparam, streamed, kv_per_position


def add_checkpoint_args(ap, work):
    """The arguments of every script that runs qwen3-run on random
    checkpoints (decode.py, prefill.py, ab.py); `work` is --work's default."""
    ap.add_argument("--configs", required=True, help="directory of Qwen3 config.json files")
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--qwen3-run", required=True)
    ap.add_argument("--models", default="qwen3-0.6b,qwen3-4b,qwen3-8b")
    ap.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
    ap.add_argument("--work", default=work)
    ap.add_argument("--out", default="")
    ap.add_argument("--keep-checkpoints", action="store_true",
                    help="leave each random checkpoint under --work, where the next "
                         "bench script with the same --work reuses it")


def checkpoints(args):
    """Per model of --models: (name, directory, config, parameters, streamed
    bytes, KV bytes per position) of its checkpoint (`checkpoint`), which
    is removed once the caller moves on unless --keep-checkpoints."""
    for name in args.models.split(","):
        d, cfg, nparam, streamed, kvpp = checkpoint(
            f"{args.configs}/{name}.json", args.dtype, args.tokenizer, args.work)
        yield name, d, cfg, nparam, streamed, kvpp
        if not args.keep_checkpoints:
            shutil.rmtree(d, ignore_errors=True)


def prompt_ids(n, seed=0, vocab=151643):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (n,), generator=g).tolist()


def run(qwen3_run, kernels, model, ids, tg, reps, warmup=32, extra=(), env=None):
    """qwen3-run on `ids`, `tg` tokens, `reps` measured runs after a warm-up
    generation, with `env` added to the environment; returns its JSON (with
    "runs")."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(ids, f)
        path = f.name
    cmd = [qwen3_run, "--model", model, "--prompt-ids", path, "--max-new-tokens", str(tg),
           "--ignore-eos", "--json", "--kernels", kernels, "--repeat", str(reps),
           "--warmup", str(warmup), "--max-seq-len", str(len(ids) + tg + 16), *extra]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           env={**os.environ, **(env or {})})
    finally:
        os.unlink(path)
    if r.returncode != 0:
        raise RuntimeError(" ".join(cmd) + ": " + r.stderr.strip()[-1000:])
    return json.loads(r.stdout)


def stats(values):
    """Median and interquartile range."""
    v = sorted(values)
    q = lambda p: v[min(len(v) - 1, max(0, round(p * (len(v) - 1))))]
    return {"median": q(0.5), "q1": q(0.25), "q3": q(0.75), "n": len(v)}
