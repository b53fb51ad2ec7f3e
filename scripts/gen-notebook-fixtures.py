#!/usr/bin/env python3
"""Generate test/fixtures/notebooks/: small hand-written notebooks and the exact text the
reference's writer produces for them, computed independently of the TypeScript code.

The expected text is what Python's nbformat tooling writes for the dialog read from the input
(SPEC section 7): nbformat's rejoin_lines on reading, then split_lines and
json.dumps(sort_keys=True, indent=1, separators=(',', ': '), ensure_ascii=False) + "\\n" on
writing, nbformat's strip_transient, plus what the dialog model adds: nbformat_minor 5, fresh ids
for cells without one (or with a null or repeated id), code cells always carrying outputs and
execution_count, and output metadata key `__type` dropped. The dialog model itself must be
lossless, so everything else (metadata, flags, prompt sources) is written back unchanged.

Fresh ids come from a counter ("00000001", "00000002", ...) skipping ids used in the notebook;
the tests give readsIpynb the same counter.

Lone surrogates: Python would write them raw and then fail to encode the file; the port writes
them as \\udxxx escapes, so the expected text does too.

Usage:
  python3 scripts/gen-notebook-fixtures.py            # (re)write the fixtures
  python3 scripts/gen-notebook-fixtures.py --check DIR  # check the emulation against the
                                                        # conformance dialogs in DIR
"""
import glob
import json
import os
import re
import sys

SEP = "\n\n##### \U0001F916Reply\U0001F916<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'test', 'fixtures', 'notebooks')


def is_json_mime(k):
    return k == 'application/json' or (k.startswith('application/') and k.endswith('+json'))


def norm_bundle(b):
    # nbformat rejoin_lines (reading) then split_lines (writing) on one mimebundle
    for k, v in list(b.items()):
        if not is_json_mime(k) and isinstance(v, list) and all(isinstance(x, str) for x in v):
            v = b[k] = ''.join(v)
        if isinstance(v, str) and (k.startswith('text/') or k in ('application/javascript', 'image/svg+xml')):
            b[k] = v.splitlines(True)


def counter():
    n = 0

    def nxt():
        nonlocal n
        n += 1
        return '%08x' % n
    return nxt


def emulate(text):
    """Expected output text for an input notebook text."""
    nb = json.loads(text)
    gen = counter()
    written = {c['id'] for c in nb['cells'] if isinstance(c.get('id'), str)}
    used = set()

    def fresh():
        while True:
            i = gen()
            if i not in written and i not in used:
                return i
    for c in nb['cells']:
        cid = c.get('id')
        if not isinstance(cid, str) or cid in used:
            cid = fresh()
        used.add(cid)
        c['id'] = cid
        src = c.get('source', '')
        if isinstance(src, list):
            src = ''.join(src)
        c['source'] = src.splitlines(True)
        md = c.setdefault('metadata', {})
        md.pop('trusted', None)
        for a in c.get('attachments', {}).values():
            norm_bundle(a)
        if c['cell_type'] == 'code':
            c.setdefault('outputs', [])
            c.setdefault('execution_count', None)
            for o in c['outputs']:
                ot = o.get('output_type', '')
                if ot in ('execute_result', 'display_data'):
                    norm_bundle(o.get('data', {}))
                    if isinstance(o.get('metadata'), dict):
                        o['metadata'].pop('__type', None)
                elif ot and isinstance(o.get('text', ''), list):
                    o['text'] = ''.join(o['text'])
                if ot == 'stream' and isinstance(o.get('text'), str):
                    o['text'] = o['text'].splitlines(True)
    nb['nbformat'] = 4
    nb['nbformat_minor'] = 5
    md = nb.setdefault('metadata', {})
    for k in ('orig_nbformat', 'orig_nbformat_minor', 'signature'):
        md.pop(k, None)
    out = json.dumps(nb, sort_keys=True, indent=1, separators=(',', ': '), ensure_ascii=False) + '\n'
    return re.sub('[\ud800-\udfff]', lambda m: '\\u%04x' % ord(m.group()), out)


# ---------------------------------------------------------------------------------------------
# Inputs: written by hand, deliberately NOT in nbformat's form (2-space indent, unsorted keys,
# string sources, escapes Python would not write, no trailing newline) so that normalisation
# is exercised. The separator is spelled with the emoji as \ud83e\udd16 escapes in some places
# and raw in others.

SEP_ESC = r'\n\n##### \ud83e\udd16Reply\ud83e\udd16<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n'
SEP_RAW = SEP.replace('\n', '\\n')

INPUTS = {}

# Cells without ids (an nbformat 4.4 notebook), a null id, a repeated id, and an explicit id
# equal to the first candidate a counter would give.
INPUTS['ids-v44'] = r'''{
  "nbformat": 4,
  "nbformat_minor": 4,
  "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
  "cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "text"]},
    {"cell_type": "code", "id": "a1", "metadata": {}, "source": "x = 1", "outputs": [], "execution_count": 1},
    {"cell_type": "code", "id": null, "metadata": {}, "source": "y = 2", "outputs": [], "execution_count": null},
    {"cell_type": "markdown", "id": "a1", "metadata": {}, "source": "again a1"},
    {"cell_type": "raw", "id": "00000001", "metadata": {"format": "text/plain"}, "source": "raw text"}
  ]
}'''

# Numbers and awkward keys in metadata; flags with non-boolean spellings; transient keys.
INPUTS['numbers-keys'] = r'''{"cells": [
  {"cell_type": "code", "id": "num-1", "execution_count": 3, "outputs": [],
   "metadata": {"b": 1, "2": 2, "a": 3, "10": 4,
     "floats": [1.0, 1e-07, 1E-7, 1.50, -0.0, 0.1, 1e16, 123456789012345678.0, 2.5e-300],
     "ints": [12345678901234567890, -0, 0, -12, 100000000000000000000000000001],
     "__proto__": {"polluted": true}, "constructor": "not a function",
     "z\uffff": "bmp", "z\ud83d\ude00": "astral", "z\ue000": "private",
     "skipped": true, "pinned": 1, "trusted": true, "collapsed": false},
   "source": "pass"},
  {"cell_type": "markdown", "id": "num-2", "metadata": {"skipped": false, "pinned": 0, "nested": {"k": [1, 2.0, {"3": "x", "1": "y"}]}},
   "source": "note"}
 ],
 "metadata": {"signature": "sha256:abc", "orig_nbformat": 3, "orig_nbformat_minor": 0,
   "__proto__": {"x": 1}, "toString": "s", "solveit_ver": 2, "weights": [0.5, 1.0, 3]},
 "nbformat_minor": 5, "nbformat": 4}'''

# String forms and line-break characters.
INPUTS['strings'] = r'''{"nbformat": 4, "nbformat_minor": 5, "metadata": {"title": "caf\u00e9 \/ t\u00e9"},
 "cells": [
  {"cell_type": "code", "id": "crlf", "metadata": {}, "outputs": [], "execution_count": null,
   "source": "a = 1\r\nb = 2\rc = 3\n\nd = 4\r\n"},
  {"cell_type": "markdown", "id": "breaks", "metadata": {},
   "source": "v\u000bf\u000cfs\u001cgs\u001drs\u001enel\u0085ls\u2028ps\u2029end"},
  {"cell_type": "markdown", "id": "surrogates", "metadata": {"lone": "\udc00 tail", "pair": "\ud83d\ude00"},
   "source": ["lone high \ud800 here\n", "paired \ud83d\ude00 ok\n", "high at end \udbff"]},
  {"cell_type": "markdown", "id": "controls", "metadata": {},
   "source": "tab\there \u0001 \u001f del\u007f nbsp\u00a0 bom\ufeff quote\" back\\ slash\/"},
  {"cell_type": "markdown", "id": "empty", "metadata": {}, "source": ""},
  {"cell_type": "markdown", "id": "empty-list", "metadata": {}, "source": []},
  {"cell_type": "code", "id": "resplit", "metadata": {}, "outputs": [], "execution_count": null,
   "source": ["a", "b\nc", "", "\r", "\nd\n"]},
  {"cell_type": "raw", "id": "raw-1", "metadata": {}, "source": "no newline at end"}
 ]}'''

# Prompts: answered, unanswered, empty request, separator twice, separator without solveit_ai,
# empty reply after a separator, separator in code and raw cells (never split), solveit_ai false.
INPUTS['prompts'] = ('''{"nbformat": 4, "nbformat_minor": 5, "metadata": {"solveit_dialog_mode": "learning", "solveit_ver": 2},
 "cells": [
  {"cell_type": "markdown", "id": "p-answered", "metadata": {"solveit_ai": true, "time_run": "1:00p"},
   "source": "What is 2+2?SEP_ESCIt is **4**.\\n\\nDone."},
  {"cell_type": "markdown", "id": "p-unanswered", "metadata": {"solveit_ai": true},
   "source": "Please draw a dog."},
  {"cell_type": "markdown", "id": "p-empty-content", "metadata": {"solveit_ai": true},
   "source": "SEP_RAWreply only"},
  {"cell_type": "markdown", "id": "p-two-seps", "metadata": {"solveit_ai": true, "pinned": true},
   "source": ["first request", "SEP_RAW", "reply quoting the separatorSEP_RAWand more"]},
  {"cell_type": "markdown", "id": "p-no-flag", "metadata": {},
   "source": "cleaned by nbdevSEP_RAWreply kept"},
  {"cell_type": "markdown", "id": "p-empty-reply", "metadata": {"solveit_ai": true},
   "source": "asked, no answer yetSEP_RAW"},
  {"cell_type": "code", "id": "c-sep", "metadata": {}, "outputs": [], "execution_count": 2,
   "source": "s = 'xSEP_RAWy'"},
  {"cell_type": "raw", "id": "r-sep", "metadata": {}, "source": "rawSEP_RAWtext"},
  {"cell_type": "markdown", "id": "n-false", "metadata": {"solveit_ai": false}, "source": "just a note"},
  {"cell_type": "markdown", "id": "p-false-sep", "metadata": {"solveit_ai": false, "skipped": true},
   "source": "flag false but separatorSEP_RAWreply"},
  {"cell_type": "markdown", "id": "p-one", "metadata": {"solveit_ai": 1}, "source": "truthy flag"}
 ]}'''.replace('SEP_ESC', SEP_ESC).replace('SEP_RAW', SEP_RAW))

# Outputs and attachments: every splitting rule of nbformat.
INPUTS['outputs'] = r'''{"nbformat": 4, "nbformat_minor": 5, "metadata": {},
 "cells": [
  {"cell_type": "code", "id": "streams", "metadata": {}, "execution_count": 1, "source": "print(1)",
   "outputs": [
    {"output_type": "stream", "name": "stdout", "text": "one\ntwo\n"},
    {"output_type": "stream", "name": "stderr", "text": ["par", "tial\nline", "\n"]},
    {"output_type": "stream", "name": "stdout", "text": []}
   ]},
  {"cell_type": "code", "id": "results", "metadata": {}, "execution_count": 2, "source": "x",
   "outputs": [
    {"output_type": "execute_result", "execution_count": 2, "metadata": {"__type": "tuple", "did": "d1"},
     "data": {"text/plain": ["(1,\n", " 2)"]}},
    {"output_type": "display_data", "metadata": {"__type": "str"},
     "data": {"text/html": "<b>x</b>\n<i>y</i>", "text/markdown": "*m*",
      "image/png": ["iVBORw0KGgo\n", "AAAANSUhEUg=="], "image/jpeg": "/9j/4AAQ",
      "image/svg+xml": "<svg>\n</svg>\n", "application/javascript": "var a;\nvar b;",
      "application/json": {"a": [1, 2.0], "b": "x\ny"}, "application/vnd.custom+json": ["keep\n", "as list"],
      "text/latex": "$x$\r\n$y$"}},
    {"output_type": "error", "ename": "ValueError", "evalue": "bad\nvalue",
     "traceback": ["\u001b[0;31mValueError\u001b[0m: bad\nvalue", "line 2"]}
   ]},
  {"cell_type": "code", "id": "bare", "metadata": {}, "source": ""},
  {"cell_type": "markdown", "id": "attach", "metadata": {}, "source": "![img](attachment:a.png)",
   "attachments": {"a.png": {"image/png": "iVBORw0KGgo="}, "b.txt": {"text/plain": "l1\nl2\n"},
                   "c.svg": {"image/svg+xml": ["<svg>", "</svg>"]}}}
 ]}'''


def write_fixtures():
    os.makedirs(OUT, exist_ok=True)
    for name, text in INPUTS.items():
        json.loads(text)  # must be valid JSON
        with open(os.path.join(OUT, name + '.ipynb'), 'w', encoding='utf-8', newline='') as f:
            f.write(text)
        with open(os.path.join(OUT, name + '.expected.ipynb'), 'w', encoding='utf-8', newline='') as f:
            f.write(emulate(text))
        print('wrote', name)


def check(d):
    bad = 0
    names = sorted(glob.glob(os.path.join(d, '*.ipynb')))
    for f in names:
        if f.endswith('.compact.ipynb') or f.endswith('.roundtrip.ipynb'):
            continue
        exp = f[:-len('.ipynb')] + '.roundtrip.ipynb'
        if not os.path.exists(exp):
            exp = f
        with open(f, encoding='utf-8') as fh:
            got = emulate(fh.read())
        with open(exp, encoding='utf-8') as fh:
            want = fh.read()
        if got != want:
            bad += 1
            print('MISMATCH', f)
    print('checked', len([n for n in names if not n.endswith(('.compact.ipynb', '.roundtrip.ipynb'))]), 'dialogs,', bad, 'mismatches')
    return bad


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[1] == '--check':
        sys.exit(1 if check(sys.argv[2]) else 0)
    write_fixtures()
