#!/usr/bin/env python3
"""Write notebooks/demo.ipynb: a small, made-up dialog about profiling a slow CSV loader.

The dialog exercises what dlg-compact handles: notes, code cells with stream, execute_result
and error outputs (with an ANSI traceback), prompts whose replies hold current-form tool blocks
(```json {.tool}) with long results, and a prompt without tools. Everything in it is written
for this project. The file is written the way nbformat writes notebooks (keys sorted, indent 1,
raw non-ASCII, multi-line strings as lists of lines, trailing newline), so reading and writing
it with dlg-compact reproduces it byte for byte.

Run from the repository root:  python3 scripts/make-demo.py
"""
import json
import pathlib

SEP = "\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n"
OUT = pathlib.Path(__file__).resolve().parent.parent / "notebooks" / "demo.ipynb"


def lines(text):
    """nbformat's form of a multi-line string: str.splitlines(keepends=True)."""
    return text.splitlines(True)


def tool(tid, name, args, result):
    body = json.dumps({"id": tid, "name": name, "args": args, "result": result}, indent=2, ensure_ascii=False)
    return "```json {.tool}\n" + body + "\n```"


def note(cid, text):
    return {"cell_type": "markdown", "id": cid, "metadata": {}, "source": lines(text)}


def prompt(cid, content, reply):
    return {"cell_type": "markdown", "id": cid, "metadata": {"solveit_ai": True}, "source": lines(content + SEP + reply)}


def code(cid, n, src, outputs):
    return {"cell_type": "code", "execution_count": n, "id": cid, "metadata": {}, "outputs": outputs, "source": lines(src)}


def stream(text, name="stdout"):
    return {"name": name, "output_type": "stream", "text": lines(text)}


def result(n, plain, html=None):
    data = {"text/plain": lines(plain)}
    if html is not None:
        data["text/html"] = lines(html)
    return {"data": data, "execution_count": n, "metadata": {}, "output_type": "execute_result"}


def error(ename, evalue, traceback):
    return {"ename": ename, "evalue": evalue, "output_type": "error", "traceback": traceback}


# A cProfile table as the profiler prints it; long enough that its result must be cut.
PROFILE_ROWS = [
    ("200000", "4.912", "0.000", "7.803", "0.000", "_strptime.py:309(_strptime)"),
    ("200000", "1.644", "0.000", "9.447", "0.000", "_strptime.py:565(_strptime_datetime)"),
    ("200001", "1.203", "0.000", "2.377", "0.000", "csv.py:107(__next__)"),
    ("400000", "0.991", "0.000", "0.991", "0.000", "{method 'match' of 're.Pattern' objects}"),
    ("200000", "0.874", "0.000", "0.874", "0.000", "{built-in method _locale.nl_langinfo}"),
    ("200000", "0.702", "0.000", "0.702", "0.000", "{method 'groupdict' of 're.Match' objects}"),
    ("600000", "0.655", "0.000", "0.655", "0.000", "{method 'strip' of 'str' objects}"),
    ("200000", "0.511", "0.000", "0.511", "0.000", "{built-in method builtins.round}"),
    ("200000", "0.433", "0.000", "0.433", "0.000", "{method 'append' of 'list' objects}"),
    ("200000", "0.402", "0.000", "0.402", "0.000", "_strptime.py:26(_getlang)"),
    ("1", "0.388", "0.388", "14.713", "14.713", "loader.py:8(load_orders)"),
    ("200001", "0.301", "0.000", "0.301", "0.000", "{built-in method builtins.next}"),
    ("200000", "0.266", "0.000", "0.266", "0.000", "{method 'lower' of 'str' objects}"),
    ("1", "0.000", "0.000", "0.000", "0.000", "{built-in method io.open}"),
]


def profile_table():
    head = (
        "         4000012 function calls in 14.713 seconds\n\n"
        "   Ordered by: internal time\n\n"
        "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n"
    )
    rows = "".join(f"{a:>9} {b:>8} {c:>8} {d:>8} {e:>8} {f}\n" for a, b, c, d, e, f in PROFILE_ROWS)
    return head + rows


SAMPLE_ROWS = "\n".join(
    f"{1000 + i},{['ACME', 'Globex', 'Initech', 'Umbrella'][i % 4]},"
    f"2024-03-{1 + i % 28:02d} {8 + i % 10:02d}:{(7 * i) % 60:02d}:{(13 * i) % 60:02d},"
    f"{(i * 37) % 500 + 0.99:.2f},{['EUR', 'USD', 'GBP'][i % 3]}"
    for i in range(40)
)

LOADER_SRC = '''import csv, time
from datetime import datetime
from decimal import Decimal

def load_orders(path):
    rows = []
    with open(path, newline='') as f:
        for r in csv.DictReader(f):
            rows.append(dict(
                order_id=int(r['order_id']),
                customer=r['customer'].strip(),
                placed=datetime.strptime(r['placed'].strip(), '%Y-%m-%d %H:%M:%S'),
                amount=Decimal(r['amount']),
                currency=r['currency'].strip().lower(),
            ))
    return rows

t0 = time.perf_counter()
orders = load_orders('orders.csv')
print(f'load_orders: {len(orders)} rows in {time.perf_counter() - t0:.2f} s')'''

TRACEBACK = [
    "\u001b[0;31m---------------------------------------------------------------------------\u001b[0m",
    "\u001b[0;31mValueError\u001b[0m                                Traceback (most recent call last)",
    "Cell \u001b[0;32mIn[6], line 3\u001b[0m\n\u001b[1;32m      1\u001b[0m \u001b[38;5;28;01mimport\u001b[39;00m \u001b[38;5;21;01mpandas\u001b[39;00m \u001b[38;5;28;01mas\u001b[39;00m \u001b[38;5;21;01mpd\u001b[39;00m\n\u001b[1;32m      2\u001b[0m df \u001b[38;5;241m=\u001b[39m pd\u001b[38;5;241m.\u001b[39mread_csv(\u001b[38;5;124m'\u001b[39m\u001b[38;5;124morders.csv\u001b[39m\u001b[38;5;124m'\u001b[39m)\n\u001b[0;32m----> 3\u001b[0m df[\u001b[38;5;124m'\u001b[39m\u001b[38;5;124mplaced\u001b[39m\u001b[38;5;124m'\u001b[39m] \u001b[38;5;241m=\u001b[39m pd\u001b[38;5;241m.\u001b[39mto_datetime(df[\u001b[38;5;124m'\u001b[39m\u001b[38;5;124mplaced\u001b[39m\u001b[38;5;124m'\u001b[39m], \u001b[38;5;28mformat\u001b[39m\u001b[38;5;241m=\u001b[39m\u001b[38;5;124m'\u001b[39m\u001b[38;5;124m%\u001b[39m\u001b[38;5;124mY-\u001b[39m\u001b[38;5;124m%\u001b[39m\u001b[38;5;124mm-\u001b[39m\u001b[38;5;132;01m%d\u001b[39;00m\u001b[38;5;124m \u001b[39m\u001b[38;5;124m%\u001b[39m\u001b[38;5;124mH:\u001b[39m\u001b[38;5;124m%\u001b[39m\u001b[38;5;124mM:\u001b[39m\u001b[38;5;124m%\u001b[39m\u001b[38;5;124mS\u001b[39m\u001b[38;5;124m'\u001b[39m)\n",
    "File \u001b[0;32m/usr/lib/python3/dist-packages/pandas/core/tools/datetimes.py:1067\u001b[0m, in \u001b[0;36mto_datetime\u001b[0;34m(arg, errors, dayfirst, yearfirst, utc, format, exact, unit, infer_datetime_format, origin, cache)\u001b[0m\n\u001b[1;32m   1065\u001b[0m         result \u001b[38;5;241m=\u001b[39m arg\u001b[38;5;241m.\u001b[39mmap(cache_array)\n\u001b[1;32m   1066\u001b[0m     \u001b[38;5;28;01melse\u001b[39;00m:\n\u001b[0;32m-> 1067\u001b[0m         values \u001b[38;5;241m=\u001b[39m convert_listlike(arg\u001b[38;5;241m.\u001b[39m_values, \u001b[38;5;28mformat\u001b[39m)\n",
    "File \u001b[0;32mstrptime.pyx:534\u001b[0m, in \u001b[0;36mpandas._libs.tslibs.strptime.array_strptime\u001b[0;34m()\u001b[0m\n",
    "\u001b[0;31mValueError\u001b[0m: time data \"2024-03-17T09:41:05\" doesn't match format \"%Y-%m-%d %H:%M:%S\", at position 48213. You might want to try:\n    - passing `format` if your strings have a consistent format;\n    - passing `format='ISO8601'` if your strings are all ISO8601 but not necessarily in exactly the same format;\n    - passing `format='mixed'`, and the format will be inferred for each element individually. You might want to use `dayfirst` alongside this.",
]

BAD_ROWS = "\n".join(
    f"{48213 + 97 * i},{['ACME', 'Globex', 'Initech', 'Umbrella'][i % 4]},2024-03-{10 + i % 18:02d}T{9 + i % 9:02d}:{(11 * i) % 60:02d}:05,"
    f"{(i * 53) % 700 + 0.5:.2f},{['EUR', 'USD', 'GBP'][i % 3]}"
    for i in range(24)
)

HEAD_PLAIN = """   order_id  customer              placed  amount currency
0      1000      ACME 2024-03-01 08:00:00    0.99      eur
1      1001    Globex 2024-03-02 09:07:13   37.99      usd
2      1002   Initech 2024-03-03 10:14:26   74.99      gbp
3      1003  Umbrella 2024-03-04 11:21:39  111.99      eur
4      1004      ACME 2024-03-05 12:28:52  148.99      usd"""

HEAD_HTML = """<div>
<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;">
      <th></th><th>order_id</th><th>customer</th><th>placed</th><th>amount</th><th>currency</th>
    </tr>
  </thead>
  <tbody>
    <tr><th>0</th><td>1000</td><td>ACME</td><td>2024-03-01 08:00:00</td><td>0.99</td><td>eur</td></tr>
    <tr><th>1</th><td>1001</td><td>Globex</td><td>2024-03-02 09:07:13</td><td>37.99</td><td>usd</td></tr>
    <tr><th>2</th><td>1002</td><td>Initech</td><td>2024-03-03 10:14:26</td><td>74.99</td><td>gbp</td></tr>
    <tr><th>3</th><td>1003</td><td>Umbrella</td><td>2024-03-04 11:21:39</td><td>111.99</td><td>eur</td></tr>
    <tr><th>4</th><td>1004</td><td>ACME</td><td>2024-03-05 12:28:52</td><td>148.99</td><td>usd</td></tr>
  </tbody>
</table>
</div>"""

cells = [
    note("a1c0f3e2", "# Why does the nightly order import take 15 seconds?\n\n"
         "The `orders.csv` export has grown to 200,000 rows and the loader that turns it into Python "
         "objects now dominates the nightly job. Goal: find where the time goes, make it fast, and keep "
         "the parsed values identical."),
    code("b27d9e10", 1, "from pathlib import Path\nsample = Path('orders.csv').read_text().splitlines()\n"
         "print(len(sample) - 1, 'rows')\nprint('\\n'.join(sample[:4]))",
         [stream("200000 rows\norder_id,customer,placed,amount,currency\n"
                 "1000,ACME,2024-03-01 08:00:00,0.99,EUR\n1001,Globex,2024-03-02 09:07:13,37.99,USD\n"
                 "1002,Initech,2024-03-03 10:14:26,74.99,GBP\n")]),
    code("c3e85a41", 2, LOADER_SRC, [stream("load_orders: 200000 rows in 14.71 s\n")]),
    prompt("d4f1b7c9",
           "Fifteen seconds for 200k rows feels far too slow. Can you profile `load_orders` and tell me "
           "which part is expensive? Please don't change anything yet.",
           "I'll run the loader under `cProfile` and sort by internal time, so the table shows where the "
           "interpreter itself spends its time rather than what merely calls the slow code.\n\n"
           + tool("toolu_01Hq7XkPz3Vd8sLw2Rb5NcYe", "python",
                  {"code": "import cProfile, pstats\ncProfile.run(\"load_orders('orders.csv')\", 'load.prof')\n"
                           "pstats.Stats('load.prof').sort_stats('tottime').print_stats(14)"},
                  profile_table())
           + "\n\nThe profile is unambiguous: `datetime.strptime` accounts for about 9.4 of the 14.7 "
           "seconds (`_strptime` plus `_strptime_datetime`). Each call re-validates the format string, "
           "takes a locale lock and runs a regular expression, and we pay that 200,000 times. The CSV "
           "reader itself costs about 2.4 s, and `Decimal` construction is cheap by comparison.\n\n"
           "Two options worth measuring:\n\n"
           "1. Keep the standard library but replace `strptime` with `datetime.fromisoformat`, which "
           "parses `YYYY-MM-DD HH:MM:SS` directly in C.\n"
           "2. Let pandas read the file and convert the whole column at once with `pd.to_datetime`."),
    code("e5a2c8d3", 3, "from datetime import datetime\nimport timeit\n"
         "s = '2024-03-17 09:41:05'\n"
         "print('strptime     ', timeit.timeit(lambda: datetime.strptime(s, '%Y-%m-%d %H:%M:%S'), number=100_000))\n"
         "print('fromisoformat', timeit.timeit(lambda: datetime.fromisoformat(s), number=100_000))",
         [stream("strptime      0.9481237\nfromisoformat 0.0213374\n")]),
    note("f6b3d9e4", "`fromisoformat` is about 45× faster per value. Before switching, check the whole "
         "column: the export comes from two systems and I am not sure they write dates the same way."),
    prompt("a7c4e0f5",
           "Let's try the pandas route first since we'll want a DataFrame downstream anyway. Load the file, "
           "convert `placed` with the exact format, and show me the head.",
           "Reading with pandas and converting the column in one vectorised call:\n\n"
           + tool("toolu_01Mf4TnQa8Wc2Ke6Jy9UgBsD", "python",
                  {"code": "import pandas as pd\ndf = pd.read_csv('orders.csv')\n"
                           "df.dtypes"},
                  "order_id      int64\ncustomer     object\nplaced       object\namount      float64\n"
                  "currency     object\ndtype: object")
           + "\n\n`placed` arrives as plain strings, as expected. Let me look at a slice of the raw file to "
           "confirm the layout before converting:\n\n"
           + tool("toolu_01Bv6RsLe2Xp9Dh3Wq7KaTmN", "bash",
                  {"cmd": "head -n 41 orders.csv | tail -n 40"},
                  SAMPLE_ROWS)
           + "\n\nThe sample is consistent, so the conversion in the next cell uses the exact format "
           "`%Y-%m-%d %H:%M:%S`. Note that `amount` became `float64`; if you need exact cents, pass "
           "`dtype={'amount': str}` and convert with `Decimal` afterwards."),
    code("b8d5f1a6", 4, "df = pd.read_csv('orders.csv')\ndf.head()",
         [result(4, HEAD_PLAIN, HEAD_HTML)]),
    code("c9e6a2b7", 6, "import pandas as pd\ndf = pd.read_csv('orders.csv')\n"
         "df['placed'] = pd.to_datetime(df['placed'], format='%Y-%m-%d %H:%M:%S')",
         [error("ValueError",
                "time data \"2024-03-17T09:41:05\" doesn't match format \"%Y-%m-%d %H:%M:%S\", at position "
                "48213. You might want to try:\n    - passing `format` if your strings have a consistent format;\n"
                "    - passing `format='ISO8601'` if your strings are all ISO8601 but not necessarily in exactly "
                "the same format;\n    - passing `format='mixed'`, and the format will be inferred for each "
                "element individually. You might want to use `dayfirst` alongside this.",
                TRACEBACK)]),
    prompt("d0f7b3c8",
           "That blew up at row 48213. What's different about those rows, and how many of them are there?",
           "The error says row 48213 holds `2024-03-17T09:41:05`: a `T` between date and time instead of a "
           "space, which is ISO 8601 but not the format we asked for. Let me find every such row.\n\n"
           + tool("toolu_01Xc5PgHw7Nm3Lr8Ts2VbQjK", "bash",
                  {"cmd": "grep -n 'T[0-9][0-9]:' orders.csv | head -n 24; grep -c 'T[0-9][0-9]:' orders.csv"},
                  BAD_ROWS + "\n31044")
           + "\n\n31,044 rows (about 15%) use the `T` form; they start at order 48213 and look like the "
           "second export system. They are otherwise well formed.\n\n"
           + tool("toolu_01Kd2WmYr9Fs6Tb4Hn1PcLzE", "python",
                  {"code": "s = df['placed']\n"
                           "print(s.str.len().value_counts().to_dict())\n"
                           "print(s[~s.str.match(r'^\\d{4}-\\d\\d-\\d\\d[ T]\\d\\d:\\d\\d:\\d\\d$')].head().tolist())"},
                  "{19: 200000}\n[]")
           + "\n\nEvery value is 19 characters and matches `YYYY-MM-DD[ T]HH:MM:SS`, so nothing else is "
           "hiding in there. `format='ISO8601'` accepts both separators and stays on the fast path; "
           "`format='mixed'` would also work but guesses per element and is much slower."),
    code("e1a8c4d9", 7, "import time\nt0 = time.perf_counter()\n"
         "df = pd.read_csv('orders.csv', dtype={'amount': str})\n"
         "df['placed'] = pd.to_datetime(df['placed'], format='ISO8601')\n"
         "df['currency'] = df['currency'].str.strip().str.lower()\n"
         "print(f'pandas: {len(df)} rows in {time.perf_counter() - t0:.2f} s')",
         [stream("pandas: 200000 rows in 0.31 s\n")]),
    code("f2b9d5e0", 8, "from decimal import Decimal\nfast = df.assign(amount=df['amount'].map(Decimal))\n"
         "slow = pd.DataFrame(load_orders('orders.csv'))\n"
         "(fast.to_dict('records') == slow.to_dict('records'))",
         [result(8, "True")]),
    prompt("a3c0e6f1",
           "Great, 0.31 s and identical values. Can you summarise what we changed and what could still bite "
           "us, so I can paste it into the pull request?",
           "Here is a summary for the pull request.\n\n"
           "**What was slow.** `load_orders` parsed every timestamp with `datetime.strptime`, which costs "
           "roughly 47 µs per call once format validation, the locale lock and the regular expression are "
           "counted. At 200,000 rows that was about 9.4 of the 14.7 seconds; the pure-Python CSV loop "
           "accounted for most of the rest.\n\n"
           "**What changed.** The loader now reads the file with `pandas.read_csv`, keeps `amount` as text "
           "and converts it with `Decimal` so cents stay exact, and parses `placed` in one vectorised call "
           "with `format='ISO8601'`. Total time fell from 14.7 s to 0.31 s, and a row-by-row comparison "
           "with the old loader found no differences.\n\n"
           "**Why ISO8601 and not the exact format.** About 15% of rows (from order 48213 on) come from "
           "the second export system, which writes `2024-03-17T09:41:05` with a `T`. The exact format "
           "rejects them; ISO8601 accepts both spellings without falling back to per-element guessing.\n\n"
           "**What could still bite.**\n\n"
           "- Time zones: neither system writes an offset. If one of them ever starts to, pandas will "
           "return a mix of naive and aware values and the comparison test will fail loudly, which is what "
           "we want.\n"
           "- Memory: the DataFrame holds the whole file; at the current growth rate that is fine for years, "
           "but `chunksize=` is the escape hatch.\n"
           "- Whitespace: the old loader stripped `customer`; the new one does not. No value currently has "
           "surrounding spaces, but add `.str.strip()` if the upstream export changes."),
    note("b4d1f7a2", "## Outcome\n\n"
         "- Loader time: 14.7 s → 0.31 s on 200,000 rows.\n"
         "- Mixed timestamp spellings handled with `format='ISO8601'`.\n"
         "- Regression check: the new frame equals the old loader's records, row for row."),
    code("c5e2a8b3", None, "# next: run the nightly job against yesterday's export and compare row counts", []),
]

nb = {
    "cells": cells,
    "metadata": {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python", "version": "3.11.9"},
        "solveit": {"mode": "learning", "use_tools": True, "ver": 2},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}

OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
print(f"wrote {OUT} ({len(cells)} cells)")
