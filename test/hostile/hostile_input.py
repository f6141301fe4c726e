#!/usr/bin/env python3
"""The hostile-input corpus: broken, non-regular, huge, deeply nested and
unusual inputs and outputs for every tool (tilec, tile-opt, tile-translate,
qwen3-run, the kernel cache), generated here into a scratch directory, each
judged by one classifier:

  * the tool ends (no hang past its time bound) without a signal;
  * a refusal exits 1..125 with a clear message on stderr: one line naming
    what it is about (compiler diagnostics may add the source line and a
    caret), no "LLVM ERROR", "terminate called", "PLEASE submit a bug
    report" or sanitizer report;
  * no file is left behind in the case's output directory but those the
    case expects (no partial artifact, manifest or temporary file);
  * valid-but-unusual input gets its right behaviour (checked per case).

    hostile_input.py BIN_DIR KERNELS_DIR FIXTURE_DIR

BIN_DIR holds the tools, KERNELS_DIR the Qwen3 kernel set (qwen3_bf16.*),
FIXTURE_DIR the tiny bf16 model. Prints one line per case, then the count
by tool and category; exits 1 if any case fails.
"""
import collections
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile

bin_dir, kernels, fixture = (os.path.abspath(p) for p in sys.argv[1:4])
TILEC, TILE_OPT = os.path.join(bin_dir, "tilec"), os.path.join(bin_dir, "tile-opt")
TILE_TRANSLATE, QWEN3_RUN = os.path.join(bin_dir, "tile-translate"), os.path.join(bin_dir, "qwen3-run")
TIMEOUT = 60
BAD_WORDS = ["LLVM ERROR", "terminate called", "PLEASE submit a bug report", "Stack dump",
             "AddressSanitizer", "UndefinedBehaviorSanitizer", "Segmentation fault"]

failures = []
counts = collections.Counter()

KERNEL = """kernel scale(x: &Tensor<f32, [?]>, y: &mut Tensor<f32, [?]> by [64]) {
    let i = program_id(0);
    grid(num_tiles(y, 0));
    assume(dim(x, 0) == dim(y, 0), "x and y have one length");
    store(y[i], load(x.tiles([64])[i]) * 2.0);
}
"""
KERNEL_BODY_EXPR = """kernel k(y: &mut Tensor<f32, [64]> by [64]) {{
    grid(1);
    let v = {};
    store(y[0], full([64], 0.0, f32) + (v as f32));
}}
"""


def run(tool, category, name, argv, out_dir, expect_rc=None, expect=(), allowed_files=(),
        stdout_path=None, env=None, check=None):
    """Runs one case and classifies it. expect_rc None: a refusal (1..125);
    else that exact status. `expect`: substrings stderr must hold.
    `allowed_files`: names that may exist in out_dir afterwards."""
    counts[(tool, category)] += 1
    before = set(os.listdir(out_dir))
    stdout = open(stdout_path, "wb") if stdout_path else subprocess.PIPE
    problems = []
    try:
        r = subprocess.run(argv, stdout=stdout, stderr=subprocess.PIPE, timeout=TIMEOUT,
                           env=dict(os.environ, **(env or {})), cwd=out_dir)
        rc, err = r.returncode, r.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, err = None, ""
        problems.append(f"hung past {TIMEOUT} s")
    finally:
        if stdout_path:
            stdout.close()
    if rc is not None:
        if rc < 0:
            problems.append(f"killed by signal {-rc}")
        elif expect_rc is None and not 1 <= rc <= 125:
            problems.append(f"exit status {rc} (want a refusal, 1..125)")
        elif expect_rc is not None and rc != expect_rc:
            problems.append(f"exit status {rc} (want {expect_rc})")
        for w in BAD_WORDS:
            if w in err:
                problems.append(f"stderr has {w!r}")
        lines = [l for l in err.splitlines() if l.strip()]
        if expect_rc is None:
            # One message line; a diagnostic may add its source line and caret.
            messages = [l for l in lines if "error" in l or l.startswith(("tilec:", "tile-opt:",
                                                                          "tile-translate:",
                                                                          "qwen3-run:"))]
            if not messages:
                problems.append("no error message")
            if len(lines) > 3:
                problems.append(f"{len(lines)} stderr lines")
            if len(err) > 4096:
                problems.append(f"{len(err)} bytes of stderr")
        for e in expect:
            if e not in err:
                problems.append(f"stderr lacks {e!r}")
    left = set(os.listdir(out_dir)) - before - set(allowed_files)
    if left:
        problems.append("left behind: " + ", ".join(sorted(left)))
    if check and rc is not None and not problems:
        problems += check()
    status = "ok" if not problems else "FAIL: " + "; ".join(problems)
    first = err.strip().splitlines()[0][:160] if err.strip() else ""
    print(f"[{tool}] {category}: {name}: {status}\n    {first}")
    if problems:
        failures.append(f"{tool}: {name}")


def fifo(path):
    os.mkfifo(path)


def dev_zero(path):
    os.symlink("/dev/zero", path)


def directory(path):
    os.mkdir(path)


NON_REGULAR = [("a FIFO", fifo), ("a directory", directory), ("a symlink to /dev/zero", dev_zero)]


def deep_json(depth):
    return "[" * depth + "]" * depth


def model_copy(root, name):
    d = os.path.join(root, name)
    shutil.copytree(fixture, d)
    for f in os.listdir(d):
        os.chmod(os.path.join(d, f), 0o644)
    return d


def qwen3_cases(root):
    out = os.path.join(root, "q-out")
    os.mkdir(out)
    base = [QWEN3_RUN, "--device", "cpu", "--kernels", kernels, "--max-new-tokens", "2"]
    i = 0

    def model(mutate):
        nonlocal i
        i += 1
        d = model_copy(root, f"model{i}")
        mutate(d)
        return d

    def replace(file, make):
        def m(d):
            os.remove(os.path.join(d, file))
            make(os.path.join(d, file))
        return m

    def write(file, text):
        def m(d):
            with open(os.path.join(d, file), "w") as f:
                f.write(text)
        return m

    for file in ["config.json", "tokenizer.json", "model.safetensors", "generation_config.json"]:
        for what, make in NON_REGULAR:
            run("qwen3-run", "not a regular file", f"{file} is {what}",
                base + ["--model", model(replace(file, make)), "--prompt", "Hi"], out,
                expect=[file])
    kdir_base = os.path.join(root, "kernels-base")
    for art in ["qwen3_bf16.json", "qwen3_bf16.so"]:
        for what, make in NON_REGULAR:
            kd = os.path.join(root, f"kd{i}-{art}-{what[2:5]}")
            i += 1
            os.mkdir(kd)
            for f in ["qwen3_bf16.json", "qwen3_bf16.so"]:
                if f != art:
                    shutil.copy(os.path.join(kernels, f), kd)
            make(os.path.join(kd, art))
            run("qwen3-run", "not a regular file", f"kernel set's {art} is {what}",
                [QWEN3_RUN, "--device", "cpu", "--kernels", kd, "--model", fixture,
                 "--prompt", "Hi", "--max-new-tokens", "2"], out, expect=[art])
    deep = deep_json(1_000_000)
    run("qwen3-run", "deep or long", "config.json nested a million deep",
        base + ["--model", model(write("config.json", deep)), "--prompt", "Hi"], out,
        expect=["config.json"])
    cfg = json.load(open(os.path.join(fixture, "config.json")))
    text = json.dumps(cfg)[:-1] + ', "rope_parameters": {"rope_type": ' + deep + "}}"
    run("qwen3-run", "deep or long", "a config field nested a million deep",
        base + ["--model", model(write("config.json", text)), "--prompt", "Hi"], out,
        expect=["config.json", "rope_type"])
    run("qwen3-run", "deep or long", "generation_config.json nested a million deep",
        base + ["--model", model(write("generation_config.json", deep)), "--prompt", "Hi"], out,
        expect=["generation_config.json"])
    run("qwen3-run", "deep or long", "tokenizer.json nested a million deep",
        base + ["--model", model(write("tokenizer.json", deep)), "--prompt", "Hi"], out,
        expect=["tokenizer.json"])

    def deep_header(d):
        h = deep.encode()
        with open(os.path.join(d, "model.safetensors"), "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h)
    run("qwen3-run", "deep or long", "a safetensors header nested a million deep",
        base + ["--model", model(deep_header), "--prompt", "Hi"], out, expect=["model.safetensors"])
    kd = os.path.join(root, "kd-deep")
    os.mkdir(kd)
    with open(os.path.join(kd, "qwen3_bf16.json"), "w") as f:
        f.write(deep)
    run("qwen3-run", "deep or long", "a manifest nested a million deep",
        [QWEN3_RUN, "--device", "cpu", "--kernels", kd, "--model", fixture, "--prompt", "Hi"], out,
        expect=["qwen3_bf16.json"])

    # A host object truncated after the manifest recorded its hash: refused
    # before it is loaded, and no private copy is left in TMPDIR.
    kd = os.path.join(root, "kd-truncated")
    os.mkdir(kd)
    for f in ["qwen3_bf16.json", "qwen3_bf16.so"]:
        shutil.copy(os.path.join(kernels, f), kd)
    with open(os.path.join(kd, "qwen3_bf16.so"), "r+b") as f:
        f.truncate(100_000)
    tmp = os.path.join(root, "tmpdir")
    os.mkdir(tmp)
    run("qwen3-run", "artifacts that lie", "a host object truncated after its hash",
        [QWEN3_RUN, "--device", "cpu", "--kernels", kd, "--model", fixture, "--prompt", "Hi"], out,
        expect=["qwen3_bf16.so", "SHA-256"], env={"TMPDIR": tmp},
        check=lambda: ["left in TMPDIR: " + ", ".join(os.listdir(tmp))] if os.listdir(tmp) else [])

    # Outputs that fail: reported with the file, nothing partial left.
    run("qwen3-run", "outputs that fail", "--dump-logits /dev/full",
        base + ["--model", fixture, "--prompt", "Hi", "--dump-logits", "/dev/full"], out,
        expect=["--dump-logits", "/dev/full"])
    run("qwen3-run", "outputs that fail", "--dump-logits into a missing directory",
        base + ["--model", fixture, "--prompt", "Hi", "--dump-logits",
                os.path.join(out, "none", "l.f32")], out, expect=["--dump-logits"])
    run("qwen3-run", "outputs that fail", "--dump-logits is a directory",
        base + ["--model", fixture, "--prompt", "Hi", "--dump-logits", root], out,
        expect=["--dump-logits"])
    run("qwen3-run", "outputs that fail", "stdout is /dev/full",
        base + ["--model", fixture, "--prompt", "Hi"], out, stdout_path="/dev/full",
        expect=["stdout"])
    run("qwen3-run", "outputs that fail", "--json to a full stdout",
        base + ["--model", fixture, "--prompt", "Hi", "--json"], out, stdout_path="/dev/full",
        expect=["stdout"])

    # Valid but unusual.
    long_prompt = os.path.join(root, "long.txt")
    with open(long_prompt, "w") as f:
        f.write("Hello " * 700)
    run("qwen3-run", "valid but unusual", "a prompt that fills the KV cache",
        base + ["--model", fixture, "--prompt-file", long_prompt], out,
        expect=["prompt has", "--max-seq-len"])
    run("qwen3-run", "valid but unusual", "a vocab_size below the tokenizer's ids",
        base + ["--model", model(lambda d: json.dump(dict(cfg, vocab_size=1000),
                                                    open(os.path.join(d, "config.json"), "w"))),
                "--prompt", "Hi"], out, expect=["tokenizer.json", "vocab_size"])
    logits = os.path.join(out, "logits.f32")
    run("qwen3-run", "valid but unusual", "TMPDIR missing (the CPU device's host object)",
        base + ["--model", fixture, "--prompt", "Hi", "--dump-logits", logits], out,
        expect_rc=0, env={"TMPDIR": "/nonexistent"}, allowed_files=["logits.f32"],
        check=lambda: [] if os.path.getsize(logits) == 2 * 4 * cfg["vocab_size"]
        else [f"logits file of {os.path.getsize(logits)} bytes"])


def tilec_cases(root):
    out = os.path.join(root, "c-out")
    os.mkdir(out)
    good = os.path.join(root, "good.tile")
    with open(good, "w") as f:
        f.write(KERNEL)
    for what, make in NON_REGULAR:
        p = os.path.join(root, f"in-{what[2:5]}.tile")
        make(p)
        run("tilec", "not a regular file", f"the input is {what}",
            [TILEC, p, "--emit=mlir", "-o", "-"], out, expect=[p])

    def expr_case(name, expr, expect):
        p = os.path.join(root, "".join(c if c.isalnum() else "-" for c in name) + ".tile")
        with open(p, "w") as f:
            f.write(KERNEL_BODY_EXPR.format(expr))
        run("tilec", "deep or long", name, [TILEC, p, "--emit=mlir", "-o", "out.mlir"], out,
            expect=expect)
    expr_case("a chain of 100000 additions", " + ".join(["1"] * 100_000), ["too deep"])
    expr_case("a chain of 100000 casts", "1" + " as i64" * 100_000, ["too deep"])
    expr_case("parentheses nested 100000 deep", "(" * 100_000 + "1" + ")" * 100_000,
              ["nested too deeply"])
    expr_case("a chain of 600 subtractions", " - ".join(["1"] * 600), ["too deep"])
    fan = ["fn f0(x: Tile<f32, [64]>) -> Tile<f32, [64]> { x }"]
    fan += [f"fn f{i}(x: Tile<f32, [64]>) -> Tile<f32, [64]> {{ f{i - 1}(x) + f{i - 1}(x) }}"
            for i in range(1, 26)]
    p = os.path.join(root, "fan-out.tile")
    with open(p, "w") as f:
        f.write("\n".join(fan) + "\n" + KERNEL_BODY_EXPR.format("f25(full([64], 1.0, f32))"))
    run("tilec", "deep or long", "helpers inlining into 2^25 copies",
        [TILEC, p, "--emit=mlir", "-o", "out.mlir"], out, expect=["inline into more than"])
    expr_case("INT64_MIN / -1 folded", "(-9223372036854775807 - 1) / -1", ["error"])
    expr_case("a shift past the width folded", "1 << 64", ["error"])

    # Outputs that fail.
    run("tilec", "outputs that fail", "-o /dev/full (MLIR)",
        [TILEC, good, "--emit=mlir", "-o", "/dev/full"], out, expect=["/dev/full"])
    run("tilec", "outputs that fail", "stdout is /dev/full",
        [TILEC, good, "--emit=mlir", "-o", "-"], out, stdout_path="/dev/full",
        expect=["stdout"])
    run("tilec", "outputs that fail", "-o into a missing directory",
        [TILEC, good, "--emit=ptx", "-o", os.path.join(out, "none", "k.ptx")], out,
        expect=["none"])
    run("tilec", "outputs that fail", "-o is a directory",
        [TILEC, good, "--emit=ptx", "-o", root], out, expect=[root])
    run("tilec", "outputs that fail", "-o names the manifest's own path",
        [TILEC, good, "-o", "k.json"], out, expect=["k.json"])
    ro = os.path.join(root, "read-only")
    os.mkdir(ro)
    os.chmod(ro, 0o555)
    if os.access(ro, os.W_OK):  # root writes anywhere: use a full file system instead
        counts[("tilec", "outputs that fail")] += 0
    else:
        run("tilec", "outputs that fail", "-o into a read-only directory",
            [TILEC, good, "--emit=ptx", "-o", os.path.join(ro, "k.ptx")], out, expect=[ro])
    run("tilec", "valid but unusual", "a cubin with its manifest and host object",
        [TILEC, good, "--with-host", "-o", "k.cubin"], out, expect_rc=0,
        allowed_files=["k.cubin", "k.json", "k.so"],
        check=lambda: [] if all(os.path.getsize(os.path.join(out, f)) > 0
                                for f in ["k.cubin", "k.json", "k.so"]) else ["empty output"])


def opt_translate_cases(root):
    out = os.path.join(root, "o-out")
    os.mkdir(out)
    good = os.path.join(root, "good.mlir")
    subprocess.run([TILEC, os.path.join(root, "good.tile"), "--emit=mlir", "-o", good], check=True)
    for tool, argv in [("tile-opt", [TILE_OPT]),
                       ("tile-translate", [TILE_TRANSLATE, "--emit=llvmir"])]:
        for what, make in NON_REGULAR:
            p = os.path.join(root, f"{tool}-in-{what[2:5]}.mlir")
            make(p)
            run(tool, "not a regular file", f"the input is {what}", argv + [p], out, expect=[p])
        run(tool, "outputs that fail", "-o /dev/full", argv + [good, "-o", "/dev/full"], out,
            expect=["/dev/full"])
        run(tool, "outputs that fail", "stdout is /dev/full", argv + [good], out,
            stdout_path="/dev/full", expect=["stdout"])
        run(tool, "outputs that fail", "-o into a missing directory",
            argv + [good, "-o", os.path.join(out, "none", "x")], out, expect=["none"])
    deep = os.path.join(root, "deep.mlir")
    with open(deep, "w") as f:
        f.write("module {" + "scf.execute_region {" * 50_000 + "}" * 50_000 + "}")
    run("tile-opt", "deep or long", "regions nested 50000 deep", [TILE_OPT, deep], out)
    run("tile-translate", "messages", "a --host-cpu LLVM does not know",
        [TILE_TRANSLATE, good, "--emit=host-so", "--host-cpu=no-such-cpu", "-o", "k.so"], out,
        expect=["--host-cpu=no-such-cpu"])
    run("tile-translate", "valid but unusual", "a target LLVM does not have",
        [TILE_TRANSLATE, good, "--emit=ptx", "--target=sm_12345"], out, expect=["--target"])


def cache_cases(root):
    out = os.path.join(root, "k-out")
    os.mkdir(out)
    good = os.path.join(root, "good.tile")
    cache = os.path.join(root, "cache")
    run("kernel cache", "valid but unusual", "a fresh cache", [TILEC, good, "--emit=ptx", "-o",
        "k.ptx"], out, expect_rc=0, allowed_files=["k.ptx", "k.json"], env={"TILE_CACHE_DIR": cache})
    entries = [e for e in os.listdir(cache) if not e.startswith(".")]
    for what, make in NON_REGULAR:
        for e in entries:
            p = os.path.join(cache, e)
            if os.path.isdir(p) and not os.path.islink(p):
                os.rmdir(p)
            else:
                os.remove(p)
            make(p)
        run("kernel cache", "not a regular file", f"the cache entry is {what}",
            [TILEC, good, "--emit=ptx", "-o", "k.ptx"], out, expect_rc=0,
            allowed_files=["k.ptx", "k.json"], env={"TILE_CACHE_DIR": cache},
            expect=["kernel cache"] if entries else [])
    for e in entries:
        p = os.path.join(cache, e)
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, "r+b") as f:
                f.truncate(max(1, os.path.getsize(p) // 2))
    run("kernel cache", "artifacts that lie", "a truncated cache entry",
        [TILEC, good, "--emit=ptx", "-o", "k.ptx"], out, expect_rc=0, allowed_files=["k.ptx", "k.json"],
        env={"TILE_CACHE_DIR": cache})
    run("kernel cache", "valid but unusual", "TILE_CACHE_DIR is a regular file",
        [TILEC, good, "--emit=ptx", "-o", "k.ptx"], out, expect_rc=0, allowed_files=["k.ptx", "k.json"],
        env={"TILE_CACHE_DIR": good}, expect=["kernel cache"])


with tempfile.TemporaryDirectory() as root:
    tilec_cases(root)
    opt_translate_cases(root)
    cache_cases(root)
    qwen3_cases(root)
    for d, _, files in os.walk(root):  # a read-only directory must not stop the cleanup
        os.chmod(d, 0o755)

print("\ncorpus by tool and category:")
for (tool, category), n in sorted(counts.items()):
    print(f"  {tool:15s} {category:20s} {n}")
total = sum(counts.values())
print(f"{total - len(failures)}/{total} hostile-input cases handled")
if failures:
    print("failed:\n  " + "\n  ".join(failures))
    sys.exit(1)
