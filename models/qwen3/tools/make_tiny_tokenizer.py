#!/usr/bin/env python3
"""Cuts Qwen3's tokenizer down to its first N vocabulary entries (plus the
26 added tokens, renumbered after them), keeping the merges among those:
the same algorithm, pre-tokenizer and chat template on a vocabulary small
enough for the committed test model.

    python3 models/qwen3/tools/make_tiny_tokenizer.py ../shared/qwen3/tokenizer OUTDIR [N]
"""
import json
import os
import sys

src, out = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
tok = json.load(open(os.path.join(src, "tokenizer.json")))
vocab = {t: i for t, i in tok["model"]["vocab"].items() if i < n}
merges = [m for m in tok["model"]["merges"]
          if m[0] in vocab and m[1] in vocab and m[0] + m[1] in vocab]
tok["model"]["vocab"] = vocab
tok["model"]["merges"] = merges
remap = {}
for k, a in enumerate(tok["added_tokens"]):
    remap[a["id"]] = n + k
    a["id"] = n + k
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "tokenizer.json"), "w") as f:
    json.dump(tok, f, ensure_ascii=False)
cfg = json.load(open(os.path.join(src, "tokenizer_config.json")))
cfg["added_tokens_decoder"] = {str(remap[int(k)]): v
                               for k, v in cfg["added_tokens_decoder"].items()}
with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
    json.dump(cfg, f, ensure_ascii=False, indent=1)
print(json.dumps({"vocab": len(vocab), "merges": len(merges),
                  "eos": [remap[151645], remap[151643]]}))
