"""Regenerate decode_golden.json: how Python's subprocess text mode decodes byte streams.

Each case is a list of chunks (hex); the expected text is what
subprocess.run(..., text=True, encoding="utf-8", errors="replace") returns for the concatenation.
Run: python3 tests/testdata/gen_decode_golden.py > tests/testdata/decode_golden.json
"""

import json
import subprocess
import sys

CASES = {
    "ascii": ["68656c6c6f0a"],
    "crlf": ["610d0a620d0a"],
    "lone_cr": ["610d620d"],
    "cr_then_lf_across_chunks": ["610d", "0a62"],
    "cr_cr_lf": ["0d0d0a"],
    "lf_cr": ["0a0d61"],
    "cr_chunk_then_lf_chunk_then_lf": ["610d", "0a", "0a62"],
    "invalid_byte": ["61ff62"],
    "truncated_3byte": ["e282"],
    "truncated_then_ascii": ["e28241"],
    "overlong": ["c0af"],
    "surrogate_encoded": ["eda080"],
    "split_euro": ["e2", "82ac"],
    "astral": ["f09f9880"],
    "split_astral": ["f0", "9f98", "80"],
    "stray_continuations": ["80808080"],
    "too_big": ["f4908080"],
    "nul": ["610062"],
    "bom": ["efbbbf61"],
    "latin1": ["e9e8"],
}


def decode(chunks):
    data = bytes.fromhex("".join(chunks))
    script = "import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))"
    out = subprocess.run(
        [sys.executable, "-c", script, data.hex()],
        capture_output=True, text=True, encoding="utf-8", errors="replace",
    ).stdout
    return out


golden = [{"name": n, "chunks": c, "text": decode(c), "len": len(decode(c))} for n, c in CASES.items()]
print(json.dumps(golden, indent=1, ensure_ascii=True))
