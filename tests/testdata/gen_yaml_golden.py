"""Generate yaml_golden.json: what PyYAML's `yaml.safe_load` (upstream's config loader) makes of YAML text.

Each case is a document; its value is written as JSON, with floats, infinities, NaN and dates tagged
so that the test can tell `1.0` from `1` and see what JSON cannot hold. A document PyYAML refuses is
recorded as {"error": true}.

Run by hand (needs `pip install pyyaml`): python3 tests/testdata/gen_yaml_golden.py
"""
import datetime
import json
import math
import pathlib

import yaml

SCALARS = """
yes Yes YES no No NO on On ON off Off OFF y Y n N true True TRUE tRue false False FALSE
~ null Null NULL nULL
0 -0 +0 00 007 08 0o17 0x1F 0X1F 0x_1F 0b101 0b_1 1_000 1__0 _1 1:30 -1:30 190:20:30 1:60
1e3 1E3 1e+3 1.0e3 1.0e+3 1.0e-3 1. .5 +.5 -.5 ._5 1._5 685.230_15e+03 190:20:30.15
.inf +.inf -.Inf .NaN .nan NaN inf 0.1 -1.5 3.0
2001-12-14 12:30 abc 'yes' "1e3"
""".split()

DOCUMENTS = [
    ("empty", ""),
    ("only a comment", "# nothing here\n"),
    ("only blank lines", "\n\n  \n"),
    ("document marker only", "---\n"),
    ("merge key", "base: &b\n  step_limit: 5\n  cost_limit: 1\nagent:\n  <<: *b\n  cost_limit: 2\n"),
    ("merge list", "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n  z: 3\n"),
    ("alias of a list", "l: &l [1, 2]\nm: *l\n"),
    ("bool keys", "env:\n  on: 1\n  n: 2\n"),
    ("two documents", "a: 1\n---\nb: 2\n"),
    ("duplicate key: the last wins", "agent:\n  step_limit: 3\nagent:\n  cost_limit: 4\nk: 1\nk: 2\n"),
]


def tagged(value):
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return {"float": "nan" if math.isnan(value) else repr(value)}
    if isinstance(value, (datetime.date, datetime.datetime)):
        return {"date": str(value)}
    if isinstance(value, list):
        return [tagged(v) for v in value]
    if isinstance(value, dict):
        return {str(k).lower() if isinstance(k, bool) else str(k): tagged(v) for k, v in value.items()}
    raise TypeError(type(value))


def load(text):
    try:
        return tagged(yaml.safe_load(text))
    except yaml.YAMLError:
        return {"error": True}


cases = [{"text": f"k: {s}\n", "value": load(f"k: {s}\n")} for s in SCALARS]
cases += [{"name": name, "text": text, "value": load(text)} for name, text in DOCUMENTS]
out = pathlib.Path(__file__).with_name("yaml_golden.json")
out.write_text(json.dumps({"pyyaml": yaml.__version__, "cases": cases}, indent=1) + "\n")
print(f"{len(cases)} cases -> {out}")
