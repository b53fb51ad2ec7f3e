/**
 * Python `repr` and `str` of literal values ({@link PyValue}), CPython 3.11 rules (SPEC §1,
 * §7): the text the AI view of a code cell shows when its output is a Python literal.
 */
import { hex } from './args.js';
import { pyFloatRepr } from './numbers.js';
import { isPyPrintable, pyStrRepr } from './repr.js';
import { INT_DIGIT_LIMIT, NotALiteralError, PyBytes, PyComplex, PyDict, PyEllipsis, PyList, PySet, PyStr, PyTuple, type PyValue } from './literal-values.js';

/** Python `repr(float)` digits as complex repr uses them: no `.0` on integral values. */
function complexPart(x: number): string {
  const r = pyFloatRepr(x);
  return r.endsWith('.0') ? r.slice(0, -2) : r;
}

/** repr of a str given as UTF-16 units with split offsets (see {@link PyStr}). */
function reprSplitStr(units: string, splits: readonly number[]): string {
  const quote = units.includes("'") && !units.includes('"') ? '"' : "'";
  const out: string[] = [quote];
  let si = 0;
  for (let i = 0; i < units.length; ) {
    let cp = units.charCodeAt(i);
    let w = 1;
    while (si < splits.length && splits[si] <= i) si++;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < units.length && splits[si] !== i + 1) {
      const lo = units.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        w = 2;
      }
    }
    i += w;
    if (cp === 92) out.push('\\\\');
    else if (cp === quote.charCodeAt(0)) out.push('\\' + quote);
    else if (cp === 10) out.push('\\n');
    else if (cp === 13) out.push('\\r');
    else if (cp === 9) out.push('\\t');
    else if (isPyPrintable(cp)) out.push(String.fromCodePoint(cp));
    else if (cp <= 0xff) out.push('\\x' + hex(cp, 2));
    else if (cp <= 0xffff) out.push('\\u' + hex(cp, 4));
    else out.push('\\U' + hex(cp, 8));
  }
  out.push(quote);
  return out.join('');
}

function reprBytes(b: Uint8Array): string {
  let hasSingle = false;
  let hasDouble = false;
  for (const c of b) {
    if (c === 39) hasSingle = true;
    else if (c === 34) hasDouble = true;
  }
  const q = hasSingle && !hasDouble ? 34 : 39;
  const out: string[] = ['b', String.fromCharCode(q)];
  for (const c of b) {
    if (c === q || c === 92) out.push('\\' + String.fromCharCode(c));
    else if (c === 9) out.push('\\t');
    else if (c === 10) out.push('\\n');
    else if (c === 13) out.push('\\r');
    else if (c < 32 || c >= 127) out.push('\\x' + hex(c, 2));
    else out.push(String.fromCharCode(c));
  }
  out.push(String.fromCharCode(q));
  return out.join('');
}

/**
 * Python `repr(v)` of a literal value (CPython 3.11 rules): str per SPEC §1 (quote choice,
 * escapes, printable test), bytes `b'…'` with `\xhh` for non-ASCII-printable bytes, ints in
 * decimal, floats in shortest round-trip form (`1e+16`, `1e-05`, `inf`), complex like
 * `(1+2j)`, `2j`, `(-0-1j)`, `True`/`False`/`None`/`Ellipsis`, tuples `(1,)`, lists, dicts,
 * sets in their stored (source) order and `set()` when empty.
 * Throws {@link NotALiteralError} where Python's repr raises: an int of more than 4300
 * decimal digits (ValueError under the default `sys.set_int_max_str_digits`).
 */
export function pyReprValue(v: PyValue): string {
  const out: string[] = [];
  const rec = (x: PyValue): void => {
    switch (typeof x) {
      case 'string':
        out.push(pyStrRepr(x));
        return;
      case 'boolean':
        out.push(x ? 'True' : 'False');
        return;
      case 'bigint':
        if ((x < 0n ? -x : x) >= INT_DIGIT_LIMIT) {
          throw new NotALiteralError('int beyond 4300 digits cannot be converted to str', -1);
        }
        out.push(x.toString());
        return;
      case 'number':
        out.push(pyFloatRepr(x));
        return;
    }
    if (x === null) out.push('None');
    else if (x instanceof PyStr) out.push(reprSplitStr(x.units, x.splits));
    else if (x instanceof PyBytes) out.push(reprBytes(x.bytes));
    else if (x instanceof PyComplex) {
      if (x.re === 0 && !Object.is(x.re, -0)) out.push(complexPart(x.im) + 'j');
      else {
        const im = complexPart(x.im);
        out.push('(' + complexPart(x.re) + (im[0] === '-' ? '' : '+') + im + 'j)');
      }
    } else if (x instanceof PyEllipsis) out.push('Ellipsis');
    else if (x instanceof PyTuple || x instanceof PyList || x instanceof PySet) {
      const items = x.items;
      if (x instanceof PySet && items.length === 0) {
        out.push('set()');
        return;
      }
      out.push(x instanceof PyTuple ? '(' : x instanceof PyList ? '[' : '{');
      for (let i = 0; i < items.length; i++) {
        if (i > 0) out.push(', ');
        rec(items[i]);
      }
      if (x instanceof PyTuple && items.length === 1) out.push(',');
      out.push(x instanceof PyTuple ? ')' : x instanceof PyList ? ']' : '}');
    } else if (x instanceof PyDict) {
      out.push('{');
      for (let i = 0; i < x.keys.length; i++) {
        if (i > 0) out.push(', ');
        rec(x.keys[i]);
        out.push(': ');
        rec(x.values[i]);
      }
      out.push('}');
    } else {
      throw new NotALiteralError('not a literal value', -1);
    }
  };
  rec(v);
  return out.join('');
}

/**
 * Python `str(v)` of a literal value: a str is itself (a {@link PyStr} gives its UTF-16
 * units, the closest a JS string gets), anything else is {@link pyReprValue} (for these types
 * Python's str and repr agree). Throws {@link NotALiteralError} like {@link pyReprValue}.
 */
export function pyStrValue(v: PyValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof PyStr) return v.units;
  return pyReprValue(v);
}
