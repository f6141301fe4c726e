"""Random-weight Qwen3 checkpoints at real shapes, saved by transformers the
way a Hugging Face model directory looks (config.json, generation_config.json,
safetensors shards + index, tokenizer files). Shared by compare_hf.py and
decode_speed.py; runs on the GPU machine."""
import json
import os
import shutil

import torch
from transformers import Qwen3Config, Qwen3ForCausalLM


def load_config(config_path):
    """The Qwen3Config of a config.json, its dtype left out (the caller's)."""
    with open(config_path) as f:
        cfg = json.load(f)
    cfg.pop("torch_dtype", None)
    cfg.pop("dtype", None)
    return Qwen3Config(**cfg)


def make(config_path, dtype, out_dir, tokenizer_dir, seed=0):
    """Returns (model on the GPU in `dtype`, its config, the directory)."""
    config = load_config(config_path)
    torch.manual_seed(seed)
    # Initialise directly in the target dtype: an 8B model in f32 first would
    # need 32 GB and twice the time.
    torch.set_default_dtype(dtype)
    try:
        with torch.device("cuda"):
            model = Qwen3ForCausalLM(config).eval()
    finally:
        torch.set_default_dtype(torch.float32)
    with torch.no_grad():  # norms start at ones: make them matter
        for name, p in model.named_parameters():
            if "norm" in name:
                p.copy_(1.0 + 0.2 * torch.randn_like(p))
    shutil.rmtree(out_dir, ignore_errors=True)
    model.config.torch_dtype = dtype
    model.save_pretrained(out_dir, safe_serialization=True)
    for f in ["tokenizer.json", "tokenizer_config.json"]:
        shutil.copy(os.path.join(tokenizer_dir, f), out_dir)
    with open(os.path.join(out_dir, "generation_config.json"), "w") as f:
        json.dump({"eos_token_id": [151645, 151643], "do_sample": False}, f)
    return model, config, out_dir
