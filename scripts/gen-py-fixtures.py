#!/usr/bin/env python3
"""Write test/fixtures/py-cases.json: Python's own answers for the semantics src/python/
reproduces (str.isspace/strip/splitlines/isprintable, repr, float repr, json.loads, json.dumps).
Run with the Python the reference used (3.11; Unicode 14.0.0):

    python3 scripts/gen-py-fixtures.py [path/to/shared/conformance/dsl.json]

Every expected value in the output was computed here by CPython, never by the TypeScript code.
Strings are stored through json.dumps(ensure_ascii=True), so lone surrogates survive; the
generator avoids putting a lone high surrogate directly before a lone low one (JS would read
the two as one astral character, Python keeps two code points).
"""
import json
import os
import random
import struct
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DSL = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, '..', 'shared', 'conformance', 'dsl.json')
OUT = os.path.join(ROOT, 'test', 'fixtures', 'py-cases.json')

rng = random.Random(20260821)


def is_high(c):
    return 0xD800 <= ord(c) <= 0xDBFF


def is_low(c):
    return 0xDC00 <= ord(c) <= 0xDFFF


def safe_join(chars):
    """Join characters, inserting 'x' between a lone high and a following lone low surrogate."""
    out = []
    for c in chars:
        if out and is_high(out[-1]) and is_low(c):
            out.append('x')
        out.append(c)
    return ''.join(out)


# ---------------------------------------------------------------------------------------------
# Character classes

whitespace = [c for c in range(0x110000) if chr(c).isspace()]
line_breaks = [c for c in range(0x110000) if len(('a' + chr(c) + 'b').splitlines()) == 2]

non_printable = []
start = None
for c in range(0x110001):
    np = c < 0x110000 and not chr(c).isprintable()
    if np and start is None:
        start = c
    if not np and start is not None:
        non_printable.append([start, c - 1])
        start = None

# ---------------------------------------------------------------------------------------------
# strip / splitlines

strip_cases = []
interesting = [chr(c) for c in whitespace] + ['\ufeff', '\u200b', '\u180e', 'a', '😀', '\x00', '\x1b', '\u2060']
for ch in interesting:
    for s in [ch, ch + 'a' + ch, ch + ch + 'x y' + ch, 'a' + ch + 'b', ch * 3]:
        strip_cases.append({'s': s, 'chars': None, 'strip': s.strip(), 'lstrip': s.lstrip(), 'rstrip': s.rstrip()})
for s, chars in [('xxhixx', 'x'), ('😀a😀', '😀'), ('😀a😀b', 'b😀'), ('abcba', 'ab'), ('  a  ', ''), ('', 'a'),
                 ('\U0001F600\U0001F601x\U0001F601', '\U0001F601'), ('..a..', '.'), ('ab', 'abc')]:
    strip_cases.append({'s': s, 'chars': chars, 'strip': s.strip(chars), 'lstrip': s.lstrip(chars),
                        'rstrip': s.rstrip(chars)})
for _ in range(200):
    pool = [chr(c) for c in whitespace] + list('ab ') + ['😀', '\ufeff', '\u200b']
    s = ''.join(rng.choice(pool) for _ in range(rng.randint(0, 8)))
    strip_cases.append({'s': s, 'chars': None, 'strip': s.strip(), 'lstrip': s.lstrip(), 'rstrip': s.rstrip()})

splitlines_cases = []
candidates = [chr(c) for c in line_breaks] + ['\r\n', '\n\r', '\r\r\n', '\x1f', '\u0085\n', '\ufeff', '\x0e']
for br in candidates:
    for s in [br, 'a' + br, br + 'a', 'a' + br + 'b', 'a' + br + br + 'b' + br, br * 3]:
        splitlines_cases.append({'s': s, 'lines': s.splitlines(), 'keep': s.splitlines(True)})
for s in ['', 'abc', '\n', 'a\r\nb\rc\nd', '😀\u2028😀', 'x\r', '\r\n\r\n']:
    splitlines_cases.append({'s': s, 'lines': s.splitlines(), 'keep': s.splitlines(True)})
for _ in range(200):
    pool = [chr(c) for c in line_breaks] + ['\r\n', 'a', 'bc', ' ', '😀', '\x1f']
    s = ''.join(rng.choice(pool) for _ in range(rng.randint(0, 10)))
    splitlines_cases.append({'s': s, 'lines': s.splitlines(), 'keep': s.splitlines(True)})

# ---------------------------------------------------------------------------------------------
# repr of strings: every code point up to U+3000 in blocks, then samples and class boundaries

repr_cases = []


def add_repr_block(cps):
    s = safe_join(chr(c) for c in cps)
    repr_cases.append({'s': s, 'repr': repr(s)})


for base in range(0, 0x3000, 64):
    add_repr_block(range(base, base + 64))
samples = set(range(0x3000, 0x110000, 97))
for a, b in non_printable:
    for c in (a - 1, a, b, b + 1):
        if 0 <= c < 0x110000:
            samples.add(c)
samples = sorted(samples)
for i in range(0, len(samples), 48):
    add_repr_block(samples[i:i + 48])
for s in ["", "'", '"', "'\"", "a'b", 'a"b', "it's \"x\"", '\\', "\\'", '\n\r\t', "\x00'", "'\ud800'",
          '\ud83d', '\ude00', '\U0001F600', '\U000E0001', '\u00ad', '\u0378', '\U0010FFFF', 'a\ud800b']:
    repr_cases.append({'s': s, 'repr': repr(s)})

# ---------------------------------------------------------------------------------------------
# float repr


def bits_hex(x):
    return struct.pack('>d', x).hex()


float_values = [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2 + 0.1, 1e-4, 1e-5, 9.999e-5, 0.00011, 1e15, 1e16, 9999999999999998.0,
                1e16 + 2, 1.5e16, 123456789012345680.0, 1e22, 1e21, 1e23, 5e-324, 2.2250738585072014e-308,
                1.7976931348623157e308, float('inf'), float('-inf'), float('nan'), 100.0, 1234.5, 2.5e-8, 1e300,
                3.141592653589793, 2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 63, 1 / 3, 2 / 3, 123e-7, 0.001, 12345.678e10]
for k in range(-30, 31):
    float_values.append(10.0 ** k)
    float_values.append(1.5 * 10.0 ** k)
for _ in range(1500):
    x = struct.unpack('>d', struct.pack('>Q', rng.getrandbits(64)))[0]
    if x == x:
        float_values.append(x)
for _ in range(500):
    float_values.append(round(rng.uniform(-1e6, 1e6), rng.randint(0, 8)))
assert all(isinstance(x, float) for x in float_values)
float_cases = [{'bits': bits_hex(x), 'repr': repr(x), 'json': json.dumps(x)} for x in float_values]

# ---------------------------------------------------------------------------------------------
# JSON texts: parse with json.loads, then repr and json.dumps in several modes

json_texts = []
if os.path.exists(DSL):
    with open(DSL, encoding='utf-8') as f:
        dsl = json.load(f)
    json_texts += sorted({c['args'][1] for c in dsl if c['fn'] == 'generic_call'})
generic_texts = list(json_texts)
json_texts += [
    '{"b": 1, "2": 2, "a": 3, "10": 4}',
    '{"10": 1, "9": 2, "a": 3, "01": 4, "1": 5, "4294967295": 6, "4294967294": 7, "-1": 8, "1.5": 9}',
    '{"a": 1, "b": 2, "a": 3}',
    '{"2": 1, "1": 2, "2": 3, "x": {"1": [], "0": {}}}',
    '{"__proto__": {"polluted": true}, "constructor": 1, "toString": 2, "hasOwnProperty": 3, "__proto__": 5}',
    '[1E5, 3.0e2, 1e-7, 1.0, -0.0, -0, 0, 1e400, -1e400, 123456789012345680.0, 12345678901234567890, 1E+2, 2e-0]',
    '[NaN, Infinity, -Infinity]',
    '[-12345678901234567890123456789, 100000000000000000000000000000000000001]',
    '"\\ud800"', '"\\udc00x\\ud800"', '"\\ud83d\\ude00"', '"\\uD83D\\uDE00"', '"\\u00E9\\u00e9"',
    '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
    '"\u0000"'.replace('\u0000', '\\u0000') + '',
    '"h\u00e9llo w\u00f6rld \U0001F600 \u4f60\u597d \u007f \u0080 \u2028 \ue000 \uffff"',
    '{"\U0001F600": 1, "\ue000": 2, "\uffff": 3, "a": 4, "\u00e9": 5, "": 6, "A": 7, "\U00010000": 8}',
    '{"nested": {"z": [], "a": {}, "m": [[], {}, [{}]]}}',
    '  \n\t\r [ 1 , "x" , { "k" : null } ] \n ',
    'true', 'false', 'null', '0', '"x"', '[]', '{}',
    '{"ctl": "\\u0001\\u001f\\u007f\\u0085", "q": "\'", "both": "\'\\""}',
    '{"deep": [[[[[[[[[[1]]]]]]]]]]}',
]
for _ in range(60):
    def gen(depth=0):
        r = rng.random()
        if depth > 3 or r < 0.3:
            return rng.choice([None, True, False, rng.randint(-10 ** 20, 10 ** 20), rng.random() * 10 ** rng.randint(-10, 25),
                               ''.join(chr(rng.choice([rng.randint(0, 0x7f), rng.randint(0x80, 0x3000), rng.randint(0xe000, 0xffff),
                                                      rng.randint(0x10000, 0x10ffff)])) for _ in range(rng.randint(0, 6)))])
        if r < 0.6:
            return [gen(depth + 1) for _ in range(rng.randint(0, 4))]
        return {''.join(rng.choice(['a', 'b', '1', '2', '0', 'é', '😀', '\ue000', '_']) for _ in range(rng.randint(0, 3))): gen(depth + 1)
                for _ in range(rng.randint(0, 4))}
    json_texts.append(json.dumps(gen(), ensure_ascii=rng.random() < 0.5))

dump_modes = {
    'default': {},
    'raw': {'ensure_ascii': False},
    'nb': {'indent': 1, 'sort_keys': True, 'ensure_ascii': False},
    'indent2': {'indent': 2},
    'indent0': {'indent': 0},
    'sorted': {'sort_keys': True},
    'compact': {'separators': [',', ':']},
    'tab': {'indent': '\t', 'separators': [';', '=']},
}
json_cases = []
for text in json_texts:
    v = json.loads(text)
    dumps = {name: json.dumps(v, **{k: (tuple(x) if k == 'separators' else x) for k, x in kw.items()})
             for name, kw in dump_modes.items()}
    json_cases.append({'text': text, 'generic_call': text in generic_texts, 'repr': repr(v), 'str': str(v), 'dumps': dumps})

# ---------------------------------------------------------------------------------------------
# Invalid JSON: every text here must make json.loads raise

invalid = ['', ' ', '[1,]', '{"a":1,}', '[1 2]', '{"a" 1}', '{1: 2}', "{'a': 1}", '"abc', '"abc\\"', '"a\nb"', '"a\tb"',
           '"a\x00b"', '"\x1f"', '01', '-01', '00', '-', '--1', '+1', '1.', '.5', '1e', '1e+', '1.e5', 'tru', 'nul', 'True',
           'None', 'nan', '-NaN', 'infinity', '-inf', '[', ']', '{', '}', '[1', '{"a":1', '{"a"}', '{"a":}', '"\\x41"',
           '"\\u12"', '"\\u12G4"', '"\\', '"\\U0001F600"', '1 2', '[] []', '\ufeff{}', '\u00a01', '\x0c1', '[1,,2]', ',',
           '{,}', '[,1]', 'undefined', '0x10', '1_000', "'x'", '/* c */ 1', '[1]x', '"\\ud800\\"']
invalid_cases = []
for t in invalid:
    try:
        json.loads(t)
    except json.JSONDecodeError as e:
        invalid_cases.append({'text': t, 'pos': e.pos, 'msg': e.msg})
    else:
        raise SystemExit(f'json.loads accepted {t!r}')

# ---------------------------------------------------------------------------------------------
# Code point lengths and slices

slice_strings = ['', 'abc', '😀a😀', 'a\ud800b', '\U0001F600\U0001F601\U0001F602', 'héllo 你好 😀!']
slice_cases = []
for s in slice_strings:
    for a in [None, 0, 1, 2, -1, -2, 5, -10]:
        for b in [None, 0, 1, 3, -1, -3, 10]:
            slice_cases.append({'s': s, 'start': a, 'end': b, 'len': len(s), 'slice': s[a:b]})

fixture = {
    'python': sys.version.split()[0],
    'unidata_version': unicodedata.unidata_version,
    'whitespace': whitespace,
    'line_breaks': line_breaks,
    'non_printable_ranges': non_printable,
    'strip': strip_cases,
    'splitlines': splitlines_cases,
    'repr_str': repr_cases,
    'float': float_cases,
    'json': json_cases,
    'invalid_json': invalid_cases,
    'slice': slice_cases,
}
with open(OUT, 'w', encoding='utf-8') as f:
    json.dump(fixture, f, ensure_ascii=True, indent=0)
    f.write('\n')
print(f'wrote {OUT}: ' + ', '.join(f'{k} {len(v)}' for k, v in fixture.items() if isinstance(v, list)))
