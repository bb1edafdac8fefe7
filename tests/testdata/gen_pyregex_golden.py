"""Generate pyregex_golden.json: what Python's `re` does with each pattern (findall, match, search on
each input, or the error it raises), for tests/pyregex_test.ts. Run by hand with the Python whose
`re` claudius follows (3.11-3.13):

    python3 tests/testdata/gen_pyregex_golden.py

`REFUSED` patterns are valid Python that claudius refuses to translate (the test checks the refusal
names the construct); their Python results are recorded all the same.
"""
import json
import pathlib
import re
import sys

DOT = re.DOTALL
I = re.IGNORECASE
M = re.MULTILINE
ACTION = r"```mswea_bash_command\s*\n(.*?)\n```"
XML = r"<mswea_bash_command>(.*?)</mswea_bash_command>"
REPLY = "Thinking.\n```mswea_bash_command\nls -la\n```\n"
TWO = "```mswea_bash_command\nls\n```\nand\n```mswea_bash_command  \ncat x\n```"
WS = "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u180ex"
WORDS = "abc ABC_9 é e\u0301 ß ٣ ½ Ⅻ 中文 😀 a-b"
IDS = ["django__django-11099", "astropy__astropy-12907", "sympy__sympy-20590", "Django__x", "django", ""]

# (pattern, flags, op, inputs)
CASES = [
    # upstream's default and XML action regexes (findall with re.DOTALL)
    (ACTION, DOT, "findall", [REPLY, TWO, "no block", "```mswea_bash_command\nls```", "```mswea_bash_command\n\n```"]),
    (XML, DOT, "findall", ["<mswea_bash_command>ls\n-la</mswea_bash_command> x <mswea_bash_command></mswea_bash_command>"]),
    # anchors: $ before a final newline, \Z, \A, ^ and $ with MULTILINE
    (r"ab$", 0, "findall", ["ab", "ab\n", "ab\n\n", "ab\r\n", "xab\nab"]),
    (r"ab\Z", 0, "findall", ["ab", "ab\n"]),
    (r"\Aab", 0, "findall", ["ab", "xab", "\nab"]),
    (r"^\w+$", M, "findall", ["one\ntwo\r\nthree\u2028four\n"]),
    (r"(?m)^x", 0, "findall", ["x\nx\rx\u2028x"]),
    (r"^|a", 0, "findall", ["a", "aa", ""]),
    (r"$", 0, "findall", ["", "a\n", "a\n\n"]),
    (r"(?m)$", 0, "findall", ["a\nb\n"]),
    # dot, DOTALL, scoped flags
    (r".", 0, "findall", ["a\nb\r\u2028😀"]),
    (r"(?s).", 0, "findall", ["a\nb"]),
    (r"a(?s:.)b.", 0, "findall", ["a\nb\n a\nbc"]),
    (r"(?s)a(?-s:.)b", 0, "findall", ["a\nb axb"]),
    # Unicode \d \w \s \b and their ASCII forms
    (r"\d+", 0, "findall", ["12 ٣٤ ½ ²  ３"]),
    (r"\w+", 0, "findall", [WORDS]),
    (r"\s", 0, "findall", [WS]),
    (r"\S+", 0, "findall", [WS]),
    (r"[\s]+", 0, "findall", [WS]),
    (r"(?a)\w+", 0, "findall", [WORDS]),
    (r"(?a)\s", 0, "findall", [WS]),
    (r"(?a)\d+", 0, "findall", ["12 ٣٤"]),
    (r"\b\w", 0, "findall", [WORDS]),
    (r"\B\w", 0, "findall", [WORDS]),
    (r"\B", 0, "findall", ["", "a", "ab ", " "]),
    (r"\b", 0, "findall", ["", "é"]),
    (r"(?a)\bé", 0, "findall", ["é xé"]),
    (r"(?i)(?=\n?(?a:\B)[\w-])", re.S, "findall", ["xaK\u212ak iİı ab\n"]),
    (r"[\W\d]+", 0, "findall", [WORDS]),
    (r"[^\w\s]+", 0, "findall", [WORDS]),
    (r"[\D]", 0, "findall", ["a1٣"]),
    # case-insensitive matching, Python's folding
    (r"(?i)k", 0, "findall", ["kK\u212a"]),
    (r"(?i)s", 0, "findall", ["sSſ"]),
    (r"(?i)i", 0, "findall", ["iIİı"]),
    (r"(?i)ı", 0, "findall", ["iIİı"]),
    (r"(?i)[a-z]+", 0, "findall", ["aZ\u212aſİı_é"]),
    (r"(?i)[^a-z]", 0, "findall", ["aZ\u212aſİı_é"]),
    (r"(?i)[h-j]", 0, "findall", ["iIİıH"]),
    (r"(?i)ß", 0, "findall", ["ßẞss"]),
    (r"(?i)σ", 0, "findall", ["σΣς"]),
    (r"(?i)é", 0, "findall", ["éÉ"]),
    (r"(?ai)é", 0, "findall", ["éÉ"]),
    (r"(?ai)k", 0, "findall", ["kK\u212a"]),
    (r"(?ai)[a-c]", 0, "findall", ["abcABC"]),
    (r"(?ai)[^x]", 0, "findall", ["xXy"]),
    (r"a(?i:b)c", 0, "findall", ["abc aBc aBC ABC"]),
    (r"(?i:a)*[a-c]", 0, "findall", ["Aé _1a"]),
    (r"(?i:\w)b", 0, "findall", ["aB😀 ab"]),
    (r"x(?i:[k-ſ]+)", 0, "findall", ["xK\u212aſSsİ😀"]),
    (r"x(?i:[^a-z])", 0, "findall", ["xA x\u212a xſ x1"]),
    (r"(?i)x(?-i:k)", 0, "findall", ["Xk xK x\u212a"]),
    (r"(?i)a(?-i:b)c", 0, "findall", ["abc aBc AbC"]),
    (r"(?i)(a)\1", 0, "findall", ["aA Aa ab"]),
    (r"(?u)é", 0, "findall", ["é"]),
    (r"(?a:\w+)\w", 0, "findall", ["abé"]),
    (r"(?i)(?a:k)", 0, "findall", ["kK\u212a"]),
    # verbose mode: whitespace and comments, but not in classes, escapes or after a backslash
    ("(?x) a b # c\n c", 0, "findall", ["abc", "a b c"]),
    ("(?x)[ #]+ \\  \\#", 0, "findall", ["#  #", "# #"]),
    ("(?x)a # comment ending in a backslash \\\nb\nc", 0, "findall", ["ac", "abc"]),
    ("(?x)a  +", 0, "findall", ["aaa"]),
    ("(?x)a{1, 2}", 0, "findall", ["a{1, 2}", "a{1,2}", "a{1,2}"]),
    ("(?x) (?i) a", 0, "findall", ["aA"]),
    ("(?#note)(?i)a", 0, "findall", ["aA"]),
    ("(?x:a b)c d", 0, "findall", ["abc d", "abcd"]),
    ("a b(?-x: c)", re.X, "findall", ["ab c", "abc"]),
    ("a|(?x) b", 0, "error", []),
    ("(?x)a|b c", 0, "findall", ["a bc"]),
    # groups, names, backreferences, comments
    (r"(?P<word>\w+) (?P=word)", 0, "findall", ["hello hello world world x y"]),
    (r"(a)(b)?", 0, "findall", ["ab a"]),
    (r"(a)|b", 0, "findall", ["ab"]),
    (r"(?:a)(?#comment)b", 0, "findall", ["ab"]),
    (r"(\w)\1", 0, "findall", ["aabbc"]),
    (r"(a)\10", 0, "findall", ["aa0 a\x08"]),
    (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10", 0, "findall", ["abcdefghijj"]),
    (r"(?P<x>a)(?P<y>b)", 0, "findall", ["ab"]),
    # lookarounds, atomic groups, possessive quantifiers
    (r"(?<=a)b", 0, "findall", ["ab cb"]),
    (r"(?<!a)b", 0, "findall", ["ab cb"]),
    (r"(?<=ab|cd)e", 0, "findall", ["abe cde xe"]),
    (r"\w+(?=,)", 0, "findall", ["a, b,c"]),
    (r"(?=a)*b", 0, "findall", ["b ab"]),
    (r"(?>a+)b", 0, "findall", ["aab"]),
    (r"(?>a+)a", 0, "findall", ["aaa"]),
    (r"a++a", 0, "findall", ["aaa"]),
    (r"a*+b", 0, "findall", ["aab b"]),
    (r"(a|ab)++c", 0, "findall", ["abc ac"]),
    (r"(?>(a))\1", 0, "findall", ["aa"]),
    # quantifiers and literal braces
    (r"a{2}", 0, "findall", ["aaaaa"]),
    (r"a{,2}", 0, "findall", ["aaa"]),
    (r"a{2,}?", 0, "findall", ["aaaaa"]),
    (r"a{", 0, "findall", ["a{"]),
    (r"a{}", 0, "findall", ["a{}"]),
    (r"a{x}", 0, "findall", ["a{x}"]),
    (r"{1,2}", 0, "error", []),
    (r"x{1,2", 0, "findall", ["x{1,2"]),
    (r"\w*", 0, "findall", ["ab c"]),
    (r"(?:a*)+b", 0, "findall", ["aab b"]),
    (r"(?:a|b*)+", 0, "findall", ["abbc"]),
    (r"(?:a|)*b", 0, "findall", ["aab b"]),
    (r"a*?", 0, "findall", ["aa"]),
    # escapes and classes
    (r"\x41\u00e9\U0001F600\101\0\n\t\\", 0, "findall", ["Aé😀A\x00\n\t\\"]),
    (r"[\x41-\x43\]\-^]+", 0, "findall", ["ABC]-^D"]),
    (r"[]a]+", 0, "findall", ["]a]b"]),
    (r"[^]a]+", 0, "findall", ["]a]b"]),
    (r"[a-]+", 0, "findall", ["a-b"]),
    (r"[\d-]+", 0, "findall", ["1-2a"]),
    (r"[\b]", 0, "findall", ["\x08b"]),
    (r"[[]", 0, "findall", ["[a"]),
    (r"[a&&b]", 0, "findall", ["&ab"]),
    (r"[\1]", 0, "findall", ["\x01"]),
    (r"\.\*\+\?\(\)\[\]\{\}\|\/\-\#\ \&\~", 0, "findall", [".*+?()[]{}|/-# &~"]),
    (r"[😀-😂]", 0, "findall", ["😀😁😂😃"]),
    (r"\ud83d", 0, "findall", ["\ud83d"]),
    # --filter (re.match on instance ids)
    (r"django__", 0, "match", IDS),
    (r"(?i)DJANGO", 0, "match", IDS),
    (r"astropy|sympy", 0, "match", IDS),
    (r"django$", 0, "match", IDS),
    (r".*-1\d+\Z", 0, "match", IDS),
    (r"(?x) sympy __ sympy", 0, "match", IDS),
    (r"", 0, "match", IDS),
    # re.search
    (r"\d+", 0, "search", ["abc 123 45", "none"]),
    # errors (Python's message must be reproduced)
    (r"*a", 0, "error", []),
    (r"a**", 0, "error", []),
    (r"a{2}{3}", 0, "error", []),
    (r"^*", 0, "error", []),
    (r"(?i)*", 0, "error", []),
    (r"(a", 0, "error", []),
    (r"a)", 0, "error", []),
    (r"[a", 0, "error", []),
    (r"[a-", 0, "error", []),
    (r"[z-a]", 0, "error", []),
    (r"[\d-z]", 0, "error", []),
    (r"\q", 0, "error", []),
    (r"[\A]", 0, "error", []),
    (r"\p{L}", 0, "error", []),
    (r"\z", 0, "error", []),
    (r"\x4", 0, "error", []),
    (r"\u12", 0, "error", []),
    (r"\U00110000", 0, "error", []),
    (r"\777", 0, "error", []),
    (r"[\8]", 0, "error", []),
    (r"(a)\2", 0, "error", []),
    (r"(a\1)", 0, "error", []),
    (r"\1(a)", 0, "error", []),
    (r"(?P<n>a)(?P=m)", 0, "error", []),
    (r"(?P<1a>x)", 0, "error", []),
    (r"(?P<n>a)(?P<n>b)", 0, "error", []),
    (r"(?P<n", 0, "error", []),
    (r"(?P<>a)", 0, "error", []),
    (r"(?P", 0, "error", []),
    (r"(?Px)", 0, "error", []),
    (r"(?<n>a)", 0, "error", []),
    (r"(?", 0, "error", []),
    (r"(?z)", 0, "error", []),
    (r"(?#abc", 0, "error", []),
    (r"a(?i)b", 0, "error", []),
    (r"(a(?i)b)", 0, "error", []),
    (r"(?iq)", 0, "error", []),
    (r"(?i-i:a)", 0, "error", []),
    (r"(?-a:a)", 0, "error", []),
    (r"(?au)a", 0, "error", []),
    (r"(?L)a", 0, "error", []),
    (r"(?i", 0, "error", []),
    (r"(?-", 0, "error", []),
    (r"(?-i", 0, "error", []),
    (r"(?i-1:a)", 0, "error", []),
    (r"(?<=a+)b", 0, "error", []),
    (r"(?<=a|bc)d", 0, "error", []),
    (r"(a)(?<=\1)", 0, "findall", ["aa"]),
    (r"(?<=(a)\1)b", 0, "error", []),
    (r"a{3,2}", 0, "error", []),
    (r"a{4294967295}", 0, "error", []),
    ("a\n(", 0, "error", []),
    ("\\", 0, "error", []),
    (r"(?x)[a", 0, "error", []),
    ("(?x)a # \\", 0, "error", []),
    (r"(?<x)", 0, "error", []),
]

# Valid Python that claudius refuses: (pattern, flags, op, inputs, words the refusal must contain)
REFUSED = [
    (r"(a)?(?(1)b|c)", 0, "findall", ["ab", "c"], "conditional group"),
    (r"\N{EM DASH}", 0, "findall", ["\u2014"], "named character"),
    (r"(a)?b\1", 0, "findall", ["b", "aba"], "backreference to group 1"),
    (r"(?:(a)|b)+", 0, "findall", ["ab"], "group 1 inside a repetition"),
    (r"(a|)*", 0, "findall", ["aa"], "group 1 inside a repetition"),
    (r"(?:|a)*b", 0, "findall", ["aab"], "repetition whose body can match empty before"),
    (r"(?:a*?)+", 0, "findall", ["aa"], "repetition whose body can match empty before"),
    (r"(a?)?x", 0, "match", ["x"], "group 1 inside a repetition"),
    (r"(?a)(?u:\w)", 0, "findall", ["éa"], "leading (?a:...)"),
    (r"(?ai)(a)\1", 0, "findall", ["aA"], "case-insensitive backreference"),
    (r"x(?i:(a)\1)", 0, "findall", ["xaA"], "case-insensitive backreference"),
    (r"(?t)a", 0, "findall", ["a"], "TEMPLATE"),
]


def run(pattern, flags, op, inputs):
    try:
        compiled = re.compile(pattern, flags)
    except (re.error, OverflowError, ValueError) as e:
        return {"error": str(e)}
    if op == "error":
        raise SystemExit(f"expected an error for {pattern!r}")
    results = []
    for text in inputs:
        if op == "findall":
            results.append([list(x) if isinstance(x, tuple) else x for x in compiled.findall(text)])
        else:
            m = getattr(compiled, op)(text)
            results.append(None if m is None else [m.group(0), *m.groups()])
    return {"results": results}


out = []
for pattern, flags, op, inputs in CASES:
    out.append({"pattern": pattern, "flags": flags, "op": op, "inputs": inputs, **run(pattern, flags, op, inputs)})
for pattern, flags, op, inputs, refusal in REFUSED:
    out.append({"pattern": pattern, "flags": flags, "op": op, "inputs": inputs, "refused": refusal,
                **run(pattern, flags, op, inputs)})
path = pathlib.Path(__file__).with_name("pyregex_golden.json")
path.write_text(json.dumps({"python": sys.version.split()[0], "cases": out}, indent=1) + "\n",
                encoding="utf-8")
print(f"wrote {len(out)} cases to {path}")
