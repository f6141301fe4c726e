#!/usr/bin/env python3
"""qwen3-run's interactive chat (no --prompt) on the tiny model, in a scripted
terminal session: a pseudo-terminal for stdin and stdout, so it runs as a
user's terminal would (the ">>> " prompt shown). Each reply must be the text
qwen3-run gives for the same conversation as one prompt (--prompt, or
--messages with the history), /think and /clear must take effect, and
/exit must end it with status 0. Piped input gets no prompt. Loading shows
its progress on a terminal only.

    chat_session_test.py QWEN3_RUN MODEL_DIR KERNELS_DIR
"""
import json
import os
import pty
import subprocess
import sys
import tempfile
import termios

RUN, MODEL, KERNELS = sys.argv[1:4]
BASE = [RUN, "--model", MODEL, "--device", "cpu", "--kernels", KERNELS, "--max-new-tokens", "8",
        "--max-seq-len", "256"]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def reference(*args):
    r = subprocess.run(BASE + ["--json", *args], capture_output=True, text=True, timeout=120)
    return json.loads(r.stdout)["text"]


def same(a, b):
    # An incomplete UTF-8 tail: --json leaves it out, the chat prints U+FFFD.
    return a.rstrip("\ufffd") == b.rstrip("\ufffd")


hello = reference("--prompt", "Hello")
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump([{"role": "user", "content": "Hello"}, {"role": "assistant", "content": hello},
               {"role": "user", "content": "Again"}], f)
again = reference("--messages", f.name, "--think")
os.unlink(f.name)
hi = reference("--prompt", "Hi", "--think")  # /clear keeps the thinking setting

# The terminal session: no echo, so the output is the program's alone.
master, slave = pty.openpty()
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ECHO
termios.tcsetattr(slave, termios.TCSANOW, attrs)
p = subprocess.Popen(BASE, stdin=slave, stdout=slave, stderr=subprocess.PIPE)
os.close(slave)
os.write(master, b"Hello\n/think\nAgain\n/clear\nHi\n/exit\n")
out = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # the terminal closed
        break
    if not chunk:
        break
    out += chunk
rc = p.wait(timeout=120)
err = p.stderr.read().decode(errors="replace")
text = out.decode(errors="replace").replace("\r\n", "\n")
check(rc == 0, "/exit: status 0")
parts = text.split(">>> ")
check(len(parts) == 7, f"a prompt before each of 6 lines ({len(parts) - 1} seen)")
if len(parts) == 7:
    check(same(parts[1].rstrip("\n"), hello), "the first reply is qwen3-run's for 'Hello'")
    check(parts[2] == "" and parts[4] == "", "/think and /clear print nothing on stdout")
    check(same(parts[3].rstrip("\n"), again),
          "the second reply, thinking on, is qwen3-run's for the whole history")
    check(same(parts[5].rstrip("\n"), hi),
          "after /clear, the reply is qwen3-run's for 'Hi' alone (thinking still on)")
check("thinking off" in err and "(thinking on)" in err and "(a new conversation)" in err,
      "the banner and the commands' notices on stderr")

# Piped input: no prompt, the reply alone; end of input ends it.
r = subprocess.run(BASE, input="Hello\n", capture_output=True, text=True, timeout=120)
check(r.returncode == 0 and ">>>" not in r.stdout and same(r.stdout.rstrip("\n"), hello),
      "piped input: the reply without prompts")

# Loading shows progress on a terminal's stderr, and nothing when piped.
master, slave = pty.openpty()
p = subprocess.Popen(BASE + ["--prompt", "Hello"], stdout=subprocess.PIPE, stderr=slave)
os.close(slave)
err = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    err += chunk
p.wait(timeout=120)
check(b"loading " in err and b"100%\r\033[K" in err,
      "a terminal sees the load progress, cleared once loaded")
r = subprocess.run(BASE + ["--prompt", "Hello"], capture_output=True, text=True, timeout=120)
check("loading" not in r.stderr, "piped stderr: no progress line")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("all checks passed")
