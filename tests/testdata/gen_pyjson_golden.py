"""Generate pyjson_golden.json: what Python's json.loads says about tool-call argument texts.

Run by hand: python3 tests/testdata/gen_pyjson_golden.py
"""
import json
import pathlib

CASES = [
    "", "   ", "\n", "{not json", '{"command": "ls"', '{"command": "l\ns"}', '{"command": "\\q"}',
    '{"command" "ls"}', '{"command": }', '{"a": 1,}', '{"a": 1 "b": 2}', "[1, 2,]", "[1 2]",
    '{"command": "ls"} x', "nul", '{"command": "\\u12"}', '"abc', '{"command": "ls"}\n\n  }',
    '{\n  "command": tru\n}', "{'command': 'ls'}", '{"a":"\u00e9\\x"}', "\U0001F600{", '{"\U0001F600": x}',
    "[", "{", '{"a"', '{"a":', "-", "1.", "01", '{"command":"ls"}}', '{"command": "ls"}', "NaN",
    "[Infinity, -Infinity]", '{"a": [1, {"b": null}], "c": true}', '{"a": "\\ud83d\\ude00"}', '"\\', '"abc\\',
    '{"a": 1e5, "b": -0.5E-3}', '{"a": .5}', '{"a": +1}', "\t{\r\n}\t", '{"command": "echo \\"hi\\""}',
    '{"command": "ls"}\x00', '{"a"\n:\n1\n,\n}', "[\n\n\u00e9]", '{"cmd": "\U0001F600\U0001F600"} \U0001F600',
    '{"command": "a\tb"}', "true false", "[1,,2]", '{,}', '{"a":1}{"b":2}',
]

out = []
for text in CASES:
    try:
        json.loads(text)
        out.append({"text": text, "error": None})
    except json.JSONDecodeError as e:
        out.append({"text": text, "error": str(e)})
path = pathlib.Path(__file__).with_name("pyjson_golden.json")
path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
print(f"wrote {len(out)} cases to {path}")
