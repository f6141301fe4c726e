#!/usr/bin/env python3
"""qwen3-run on bad input: every case must exit with status 1 (not a signal,
not 0), print exactly one line on stderr, and name what is wrong (the file,
tensor or flag). The broken models are made here from the committed tiny
fixture, one temporary directory per case.

    cli_bad_input.py QWEN3_RUN FIXTURE_DIR KERNELS_DIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

qwen3_run, fixture, kernels = sys.argv[1:4]
failures = []
count = 0


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    return header, data


def write_safetensors(path, header, data, raw_header=None):
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        f.write(data)


def model_copy(tmp, source):
    d = os.path.join(tmp, "model")
    shutil.copytree(source, d)
    for name in os.listdir(d):
        os.chmod(os.path.join(d, name), 0o644)
    return d


def case(name, expect, mutate=None, args=None, model=True, source=None, device="cpu"):
    """Runs qwen3-run on a model (`source`, else the tiny fixture) changed by
    `mutate(dir)` with `args`; checks exit status 1, one stderr line, and
    that it contains every `expect`."""
    global count
    count += 1
    with tempfile.TemporaryDirectory() as tmp:
        argv = [qwen3_run]
        if model:
            d = model_copy(tmp, source or fixture)
            if mutate:
                mutate(d)
            argv += ["--model", d, "--device", device, "--kernels", kernels]
        argv += args if args is not None else ["--prompt", "Hello", "--max-new-tokens", "2"]
        argv = [a.replace("@TMP", tmp) for a in argv]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    lines = r.stderr.strip().splitlines()
    problems = []
    if r.returncode != 1:
        problems.append(f"exit status {r.returncode} (want 1)")
    if len(lines) != 1:
        problems.append(f"{len(lines)} stderr lines (want 1)")
    for e in expect:
        if e not in r.stderr:
            problems.append(f"stderr lacks {e!r}")
    if r.stdout.strip() and r.returncode == 1:
        problems.append(f"stdout not empty: {r.stdout.strip()[:100]!r}")
    status = "ok" if not problems else "FAIL " + "; ".join(problems)
    print(f"{name}: {status}\n    {r.stderr.strip()[:300]}")
    if problems:
        failures.append(name)


ST = "model.safetensors"


def edit_header(fn):
    def mutate(d):
        h, data = read_safetensors(os.path.join(d, ST))
        fn(h)
        write_safetensors(os.path.join(d, ST), h, data)
    return mutate


def edit_json(file, fn):
    def mutate(d):
        p = os.path.join(d, file)
        j = json.load(open(p))
        fn(j)
        json.dump(j, open(p, "w"))
    return mutate


def write_file(file, text):
    def mutate(d):
        with open(os.path.join(d, file), "w") as f:
            f.write(text)
    return mutate


def remove(file):
    return lambda d: os.remove(os.path.join(d, file))


def truncate(file, size):
    def mutate(d):
        p = os.path.join(d, file)
        with open(p, "r+b") as f:
            f.truncate(size)
    return mutate


EMB = "model.embed_tokens.weight"
Q = "model.layers.0.self_attn.q_proj.weight"

# config.json
case("missing config.json", ["config.json"], remove("config.json"))
case("malformed config.json", ["config.json"], write_file("config.json", '{"hidden_size": 128,'))
case("config.json not an object", ["config.json"], write_file("config.json", "[1, 2]"))
case("inconsistent heads", ["config.json", "num_key_value_heads"],
     edit_json("config.json", lambda j: j.update(num_key_value_heads=3)))
case("negative hidden size", ["config.json", "hidden_size"],
     edit_json("config.json", lambda j: j.update(hidden_size=-128)))
case("hidden size of the wrong type", ["config.json", "hidden_size"],
     edit_json("config.json", lambda j: j.update(hidden_size="128")))
case("tie_word_embeddings of the wrong type", ["config.json", "tie_word_embeddings"],
     edit_json("config.json", lambda j: j.update(tie_word_embeddings="yes")))
case("head_dim outside the kernel family", ["config.json: head_dim 96 is not supported (64 or 128)"],
     edit_json("config.json", lambda j: j.update(head_dim=96)))
case("GQA group outside the kernel family", ["config.json", "num_attention_heads 17",
                                             "1 to 16"],
     edit_json("config.json", lambda j: j.update(num_attention_heads=17)))
case("hidden size not a multiple of 128", ["config.json: hidden_size 192 is not supported"],
     edit_json("config.json", lambda j: j.update(hidden_size=192)))
case("malformed generation_config.json", ["generation_config.json"],
     write_file("generation_config.json", "{"))

# safetensors
case("missing weights", ["safetensors"], remove(ST))
case("truncated header length", [ST], truncate(ST, 5))
case("header longer than the file", [ST], truncate(ST, 100))
case("header not JSON", [ST],
     lambda d: write_safetensors(os.path.join(d, ST), None,
                                 read_safetensors(os.path.join(d, ST))[1], b"{not json" + b" " * 40))
case("truncated data", [ST], truncate(ST, 8 + 2528 + 1000))
case("dtype x shape != bytes", [ST, EMB],
     edit_header(lambda h: h[EMB].update(shape=[2176, 64])))
case("offsets out of range", [ST, Q],
     edit_header(lambda h: h[Q].update(data_offsets=[h[Q]["data_offsets"][0] + 10**9,
                                                     h[Q]["data_offsets"][1] + 10**9])))
case("offsets reversed", [ST, Q],
     edit_header(lambda h: h[Q].update(data_offsets=list(reversed(h[Q]["data_offsets"])))))


def overlap(h):
    a = h[EMB]["data_offsets"]
    n = h[Q]["data_offsets"][1] - h[Q]["data_offsets"][0]
    h[Q]["data_offsets"] = [a[0], a[0] + n]


case("overlapping tensors", [ST, "overlap"], edit_header(overlap))
case("unsupported dtype", [ST, Q, "I64"],
     edit_header(lambda h: h[Q].update(dtype="I64", shape=[h[Q]["shape"][0], h[Q]["shape"][1] // 4])))
case("missing tensor", [Q], edit_header(lambda h: h.pop(Q)))
# The checkpoint is checked before the device opens: on a machine without a
# GPU (or its driver) a missing tensor is still what the message names.
case("missing tensor, before the device", [Q], edit_header(lambda h: h.pop(Q)), device="cuda:7")


K = "model.layers.0.self_attn.k_proj.weight"


def misshape(h):  # [64, 128] -> [128, 64]: the same bytes, the wrong shape
    h[K]["shape"] = [h[K]["shape"][1], h[K]["shape"][0]]


case("mis-shaped tensor", [K, "shape"], edit_header(misshape))


def shard_index(d):
    h, data = read_safetensors(os.path.join(d, ST))
    os.remove(os.path.join(d, ST))
    h.pop(Q)  # it lives in the second shard, which is missing
    write_safetensors(os.path.join(d, "model-00001-of-00002.safetensors"), h, data)
    wm = {k: "model-00001-of-00002.safetensors" for k in h if k != "__metadata__"}
    wm[Q] = "model-00002-of-00002.safetensors"
    json.dump({"metadata": {}, "weight_map": wm},
              open(os.path.join(d, "model.safetensors.index.json"), "w"))


case("missing shard", ["model-00002-of-00002.safetensors"], shard_index)
case("malformed shard index", ["model.safetensors.index.json"],
     lambda d: (os.remove(os.path.join(d, ST)),
                write_file("model.safetensors.index.json", '{"weight_map": 3}')(d)))

# A fine-grained FP8 checkpoint (test/fixtures/tiny-fp8).
FP8 = os.path.join(os.path.dirname(os.path.abspath(fixture)), "tiny-fp8")
QS = "model.layers.0.self_attn.q_proj.weight_scale_inv"


def nan_weight(d):  # e4m3's NaN (0x7F) as the first byte of q_proj
    h, data = read_safetensors(os.path.join(d, ST))
    at = h[Q]["data_offsets"][0]
    write_safetensors(os.path.join(d, ST), h, data[:at] + b"\x7f" + data[at + 1:])


case("FP8: another quant_method", ["config.json: quantization_config.quant_method", "gptq"],
     edit_json("config.json", lambda j: j["quantization_config"].update(quant_method="gptq")),
     source=FP8)
case("FP8: per-tensor scales", ["config.json: quantization_config.weight_block_size"],
     edit_json("config.json", lambda j: j["quantization_config"].pop("weight_block_size")),
     source=FP8)
case("FP8: a bad block size", ["config.json: quantization_config.weight_block_size"],
     edit_json("config.json", lambda j: j["quantization_config"].update(weight_block_size=[128])),
     source=FP8)
case("FP8: static activations", ["config.json: quantization_config.activation_scheme"],
     edit_json("config.json", lambda j: j["quantization_config"].update(activation_scheme="static")),
     source=FP8)
case("FP8: no quantization_config", [ST, Q, "F8_E4M3", "no FP8 quantization_config"],
     edit_json("config.json", lambda j: j.pop("quantization_config")), source=FP8)
case("FP8: missing block scales", [QS, "is missing"], edit_header(lambda h: h.pop(QS)), source=FP8)
case("FP8: mis-shaped block scales", [ST, QS, "[1, 2]", "[1, 1]"],
     edit_header(lambda h: h[QS].update(shape=[1, 2], dtype="F16")), source=FP8)
case("FP8: a NaN weight", [ST, Q, "NaN at [0, 0]"], nan_weight, source=FP8)
# o_proj is whole 128 x 128 blocks: it is uploaded in FP8 (the bytes
# and scales as stored), checked on the way.
O = "model.layers.0.self_attn.o_proj.weight"
OS = O + "_scale_inv"


def nan_fp8_weight(d):  # e4m3's other NaN (0xFF) inside o_proj
    h, data = read_safetensors(os.path.join(d, ST))
    at = h[O]["data_offsets"][0] + 3 * 128 + 5
    write_safetensors(os.path.join(d, ST), h, data[:at] + b"\xff" + data[at + 1:])


def inf_fp8_scale(d):  # o_proj's BF16 block scale set to +inf
    h, data = read_safetensors(os.path.join(d, ST))
    at = h[OS]["data_offsets"][0]
    write_safetensors(os.path.join(d, ST), h, data[:at] + b"\x80\x7f" + data[at + 2:])


case("FP8: a NaN weight held in FP8", [ST, O, "NaN at [3, 5]"], nan_fp8_weight, source=FP8)
case("FP8: an infinite block scale", [ST, OS, "inf", "[0, 0]"], inf_fp8_scale, source=FP8)

# tokenizer.json
case("missing tokenizer.json", ["tokenizer.json"], remove("tokenizer.json"))
case("broken tokenizer.json", ["tokenizer.json"], truncate("tokenizer.json", 3000))
case("tokenizer.json with a bad merge", ["tokenizer.json", "merges"],
     edit_json("tokenizer.json", lambda j: j["model"]["merges"].insert(0, ["zzzq", "qqqz"])))

# prompts and flags
case("empty prompt", ["prompt"], args=["--prompt", "", "--raw-prompt"])
case("prompt longer than --max-seq-len", ["--max-seq-len"],
     args=["--prompt", "Hello, how are you? " * 20, "--max-seq-len", "16"])
case("--top-p above 1", ["--top-p"], args=["--prompt", "Hi", "--top-p", "1.5"])
case("--top-p zero", ["--top-p"], args=["--prompt", "Hi", "--top-p", "0"])
case("--temperature negative", ["--temperature"], args=["--prompt", "Hi", "--temperature", "-1"])
case("--top-k not a number", ["--top-k"], args=["--prompt", "Hi", "--top-k", "many"])
case("--max-new-tokens negative", ["--max-new-tokens"], args=["--prompt", "Hi", "--max-new-tokens", "-3"])
case("--max-seq-len above the model's", ["--max-seq-len"], args=["--prompt", "Hi", "--max-seq-len", "100000"])
case("--attention-splits the kernels lack", ["--attention-splits 24", "8, 16, 32"],
     args=["--prompt", "Hi", "--attention-splits", "24"])
case("--attention-splits zero", ["--attention-splits"], args=["--prompt", "Hi", "--attention-splits", "0"])
case("--attention-keys-per-share not a number", ["--attention-keys-per-share"],
     args=["--prompt", "Hi", "--attention-keys-per-share", "x"])
case("--attention-grouped-from negative", ["--attention-grouped-from"],
     args=["--prompt", "Hi", "--attention-grouped-from", "-3"])
case("--leave-out with an empty prefix", ["--leave-out"], args=["--prompt", "Hi", "--leave-out", "gemv,,x"])
case("--weights unknown", ["--weights", "int4"], args=["--prompt", "Hi", "--weights", "int4"])
case("--all-reduce unknown", ["--all-reduce", "ring"], args=["--prompt", "Hi", "--all-reduce", "ring"])
case("unknown flag", ["--frobnicate"], args=["--prompt", "Hi", "--frobnicate"])
case("flag without its value", ["--seed"], args=["--prompt", "Hi", "--seed"])
case("unknown device", ["device 'tpu'"], args=["--prompt", "Hi", "--device", "tpu"])
case("missing --prompt-file", ["@TMP/none.txt".replace("@TMP/", "")],
     args=["--prompt-file", "@TMP/none.txt"])
case("malformed --messages", ["messages.json"], write_file("../messages.json", '[{"role": "user"}]'),
     args=["--messages", "@TMP/messages.json"])
case("two prompt sources", ["--prompt"], args=["--prompt", "Hi", "--prompt-file", "x"])
case("--prompt-ids not a list", ["--prompt-ids", "ids.json"], write_file("../ids.json", '{"a": 1}'),
     args=["--prompt-ids", "@TMP/ids.json"])
case("--prompt-ids empty", ["--prompt-ids", "ids.json"], write_file("../ids.json", '[]'),
     args=["--prompt-ids", "@TMP/ids.json"])
case("--prompt-ids out of the vocabulary", ["--prompt-ids", "entry 1"],
     write_file("../ids.json", '[1, 99999999, 3]'), args=["--prompt-ids", "@TMP/ids.json"])
case("--prompt-ids negative", ["--prompt-ids", "entry 0"],
     write_file("../ids.json", '[-4]'), args=["--prompt-ids", "@TMP/ids.json"])
case("--prompt-ids with --system", ["--prompt-ids", "--system"],
     write_file("../ids.json", '[1, 2]'), args=["--prompt-ids", "@TMP/ids.json", "--system", "x"])
case("--repeat zero", ["--repeat"], args=["--prompt", "Hi", "--repeat", "0"])
case("no --model", ["--model"], model=False, args=["--prompt", "Hi"])
case("model directory missing", ["/nonexistent/model"], model=False,
     args=["--model", "/nonexistent/model", "--prompt", "Hi", "--device", "cpu"])
case("kernels directory missing", ["/nonexistent/kernels"],
     args=["--prompt", "Hi", "--kernels", "/nonexistent/kernels"])

# --help shows what users need; --help-all adds the measurement flags;
# --version names the version.
def help_text(flag):
    r = subprocess.run([qwen3_run, flag], capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout


for flag, has, lacks in [("--help", ["--prompt", "--max-new-tokens", "--help-all"], ["--leave-out"]),
                         ("--help-all", ["--prompt", "Measurement and tuning", "--leave-out"], []),
                         ("--version", ["qwen3-run (tile) "], ["--prompt"])]:
    count += 1
    rc, out = help_text(flag)
    problems = [f"exit status {rc}"] if rc != 0 else []
    problems += [f"lacks {h!r}" for h in has if h not in out]
    problems += [f"shows {h!r}" for h in lacks if h in out]
    print(f"{flag}: {'ok' if not problems else 'FAIL ' + '; '.join(problems)}")
    if problems:
        failures.append(flag)

print(f"{count - len(failures)}/{count} bad-input cases handled")
if failures:
    print("failed: " + ", ".join(failures))
    sys.exit(1)
