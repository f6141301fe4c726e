#!/usr/bin/env python3
"""Encodes a fixed set of hard texts with Hugging Face `tokenizers` and the
real Qwen3 tokenizer, writing the oracle that TokenizerTest's
MatchesHuggingFaceExtraCases compares against. Run where `tokenizers` is
installed (the GPU machine); the output is committed.

    python3 models/qwen3/tools/make_tokenizer_cases.py TOKENIZER_DIR OUT.jsonl
"""
import json
import random
import sys

from tokenizers import Tokenizer

tok = Tokenizer.from_file(sys.argv[1] + "/tokenizer.json")
texts = [
    # scripts
    "你好，世界！今天天气很好。", "日本語のテキスト、カタカナとひらがな。", "한국어 텍스트입니다",
    "مرحبا بالعالم", "नमस्ते दुनिया", "Привет, мир! Ёжик.", "Γειά σου Κόσμε", "สวัสดีชาวโลก",
    "עברית מימין לשמאל", "Tiếng Việt có dấu", "Ελληνικά και English mixed 中文",
    # emoji
    "👨‍👩‍👧‍👦 family", "🇯🇵🇺🇸 flags", "👍🏽👍🏿", "❤️‍🔥", "🤖🦀🐍",
    # code
    "def f(x):\n    return x ** 2  # square\n", "int main() { return 0; }\n",
    '{"key": [1, 2.5, null, true], "nested": {"a": "b"}}', "<div class=\"x\">&nbsp;</div>",
    "for (let i = 0; i < n; ++i) { sum += a[i]; }", "SELECT * FROM t WHERE id = 42;",
    "  \tindented\twith\ttabs", "#include <vector>\nstd::vector<int> v{1,2,3};",
    r"regex: ^\d{3}-\d{4}$ and \p{L}+", "x=>x*2; a?.b ?? c",
    # numbers
    "1234567890", "3.14159265358979323846", "-42 +17 1e-9 0x1F", "1,000,000.00",
    "Phone: +1 (555) 123-4567", "2026-11-21T22:00:00Z", "v1.2.3-rc.4",
    # whitespace
    "line1\r\nline2\r\n", "a\n\n\nb", "trailing   ", "   leading", "a\u00a0b", "zero\u200bwidth",
    "\t\t", "\n", " ", "tab\tand  two  spaces",
    # contractions and case
    "I'm you're he's we've they'll she'd it's", "DON'T SHOUT'S", "o'clock rock'n'roll",
    "McDonald's CEO's iPhone", "ALL CAPS WORDS HERE", "camelCaseIdentifier snake_case_name",
    # specials inside text
    "<|im_start|>system\nYou are helpful.<|im_end|>\n", "<think>\nhmm\n</think>\n\nanswer",
    "text<|endoftext|>more", "<|im_", "<|im_end", "<tool_call>{}</tool_call>",
    # normalization
    "cafe\u0301", "A\u030angstro\u0308m", "\u1100\u1161\u11a8", "ﬁ ligature", "Ω ohm vs Ω omega",
    "e\u0301\u0301 two accents", "\u0041\u0308\u0304",
    # misc
    "https://example.com/path?q=1&r=2#frag", "user@example.org", "∀x∈ℝ: x²≥0",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Supercalifragilisticexpialidocious",
    "...!!!???", "—–-", "«quotes» “curly” ‘single’", "€100 £50 ¥1000 ₿",
]
rng = random.Random(2026)
ranges = [(0x20, 0x7e), (0xa0, 0x24f), (0x370, 0x3ff), (0x400, 0x4ff), (0x4e00, 0x4fff),
          (0x3040, 0x30ff), (0xac00, 0xad00), (0x1f300, 0x1f64f), (0x300, 0x36f), (0x600, 0x6ff)]
for _ in range(40):
    n = rng.randint(1, 40)
    s = []
    for _ in range(n):
        lo, hi = rng.choice(ranges)
        s.append(chr(rng.randint(lo, hi)))
        if rng.random() < 0.15:
            s.append(rng.choice([" ", "\n", "  ", "\t"]))
    texts.append("".join(s))
with open(sys.argv[2], "w") as f:
    for t in texts:
        ids = tok.encode(t, add_special_tokens=False).ids
        f.write(json.dumps({"text": t, "ids": ids}, ensure_ascii=False) + "\n")
print(len(texts), "cases")
