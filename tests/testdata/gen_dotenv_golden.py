"""Generate dotenv_golden.json: what python-dotenv (as upstream's load_dotenv uses it) sets from a `.env`.

Upstream calls `load_dotenv(dotenv_path=...)`: interpolation on, the process environment wins
(`override=False`), keys without `=` set nothing. Each case's file is read from disk (text mode, so
CR/LF become LF as in upstream), with `env` as the whole process environment.

Run by hand (needs `pip install python-dotenv`): python3 tests/testdata/gen_dotenv_golden.py
"""
import json
import os
import pathlib
import tempfile

from importlib.metadata import version

from dotenv.main import DotEnv

CASES = [
    ("plain", "A=1\nB=two words\n", {}),
    ("hash without space stays", "K=x#y\nL=x #y\nM=x\t#y\nN=#y\n", {}),
    ("comments and blank lines", "# c\n\n   # indented\nA=1 # note\n\n\nB=2\n", {}),
    ("export", "export A=1\nexport  B = 2\nexportC=3\nexport=4\n", {}),
    ("spaces around =", "A = 1\nB= 2 \n  C  =3\n", {}),
    ("empty values", "A=\nB=''\nC=\"\"\nD= \nE=# c\n", {}),
    ("key without =", "A\nB=1\nexport C\n", {}),
    ("single quotes", "A='x # y'\nB='it\\'s'\nC='back\\\\slash'\nD='no \\n escape'\n", {}),
    ("double quotes", 'A="x # y"\nB="say \\"hi\\""\nC="a\\nb\\tc"\nD="back\\\\slash"\nE="a\\qb"\n', {}),
    ("double quote escapes", 'A="\\a\\b\\f\\r\\v\\\'"\nB="\\\\"\nC="x\\\\"y"\n', {}),
    ("multi-line quoted", 'A="line 1\nline 2"\nB=\'one\ntwo\n\'\nC=after\n', {}),
    ("quoted then comment", 'A="v" # c\nB=\'v\'#c\nC="v"x\nD=ok\n', {}),
    ("unterminated quote", 'A="open\nB=2\n', {}),
    ("unterminated single quote", "A='open\nB=2\nC='\n", {}),
    ("backticks are not quotes", "A=`x y`\nB=`a #b`\n", {}),
    ("quoted key", "'my key'=1\n'k2' = 2\n", {}),
    ("odd keys", "a.b=1\nA-B=2\nA:B=3\n=4\n#=5\nK ey=6\n", {}),
    ("later wins", "A=1\nA=2\n", {}),
    ("CRLF and CR", "A=1\r\nB=2\rC=\"x\r\ny\"\r\n", {}),
    ("trailing whitespace and tabs", "A=1\t \nB=\t2\t\n", {}),
    ("interpolation", "A=1\nB=${A}-x\nC=${NOPE}\nD=${NOPE:-dflt}\nE=$A\nF='${A}'\nG=\"${A}\"\n", {}),
    ("interpolation sees env first", "HOME2=file\nX=${HOME2}\n", {"HOME2": "/real"}),
    ("interpolation defaults", "A=${X:-}\nB=${X:-a b}\nC=${X-y}\nD=${}\nE=${A:-q}\n", {}),
    ("interpolation of unset-by-file key", "A\nB=${A:-d}\n", {}),
    ("interpolation from env default", "B=${E1:-d}\n", {"E1": "env"}),
    ("unicode", "A=é ü\nB=\"😀\"\nÄ=1\n", {}),
    ("value with =", "A=b=c\nB='=='\n", {}),
    ("no trailing newline", "A=1\nB=2", {}),
    ("garbage lines", "this is not\nA=1\n!!!\n  B  =  2  # c\n", {}),
    ("hash in key position", "#A=1\n #B=2\n", {}),
    ("dollar forms", "A=$\nB=${\nC=${A\nD=$${A}\n", {}),
]


def load(text: str, env: dict) -> dict:
    """What load_dotenv would add to an environment that is exactly `env`."""
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(env)
        with tempfile.NamedTemporaryFile("w", suffix=".env", delete=False, newline="") as f:
            f.write(text)
        try:
            values = DotEnv(f.name, interpolate=True, override=False).dict()
        finally:
            os.unlink(f.name)
        return {k: v for k, v in values.items() if v is not None and k not in env}
    finally:
        os.environ.clear()
        os.environ.update(saved)


out = [{"name": name, "text": text, "env": env, "expected": load(text, env)} for name, text, env in CASES]
path = pathlib.Path(__file__).with_name("dotenv_golden.json")
path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
print(f"python-dotenv {version('python-dotenv')}: wrote {len(out)} cases to {path}")
