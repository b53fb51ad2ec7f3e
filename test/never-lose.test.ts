/**
 * Never lose a call, never compact twice (properties over mutated real dialogs): think markers
 * written into tool arguments and results are data, real think spans around them are removed,
 * every call survives fmt2hist; and compacting a compacted slice of a real dialog changes
 * nothing. Seeded by fcParams (scripts/fuzz.mjs raises the run count).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { THINK_END, THINK_START, fmt2hist, parseToolBlocks, type ReplyItem } from '../src/chat/index.js';
import { toolBlockText } from '../src/chat/tool-block.js';
import { compactDialog } from '../src/dialog/compact.js';
import { dumpsIpynb, readsIpynb } from '../src/notebook/index.js';
import { pyDumps } from '../src/python/index.js';
import { HAVE_SHARED, fcParams, shared } from './support.js';

const dir = (...p: string[]): string => shared('conformance', 'dialogs', ...p);
const names: string[] = HAVE_SHARED ? (JSON.parse(readFileSync(dir('manifest.json'), 'utf8')) as { name: string }[]).map((e) => e.name) : [];
const texts = names.map((n) => readFileSync(dir(`${n}.ipynb`), 'utf8'));
const replies: string[] = [];
for (let i = 0; i < texts.length; i++) {
  for (const m of readsIpynb(texts[i]!, names[i]!).messages)
    if (m.type === 'prompt' && parseToolBlocks(m.reply).items.some((x) => x.kind === 'tool')) replies.push(m.reply);
}

const MARKS = [THINK_START, THINK_END, THINK_START + 'x' + THINK_END, '<!--think_start-->\n', '\n<!--think_end-->\n'];

/** A string with markers put in at the given places (picks index into MARKS). */
function marked(s: string, picks: readonly number[]): string {
  let out = s;
  for (const p of picks) {
    const at = p % (out.length + 1);
    out = out.slice(0, at) + MARKS[p % MARKS.length]! + out.slice(at);
  }
  return out;
}

/** Every string of a JSON-like value with markers put in (the picks cycle through the strings). */
function markValue(v: unknown, picks: readonly number[], k: { i: number }): unknown {
  if (typeof v === 'string') return marked(v, picks.length ? [picks[k.i++ % picks.length]!] : []);
  if (Array.isArray(v)) return v.map((x) => markValue(x, picks, k));
  if (v !== null && typeof v === 'object' && v.constructor === Object) {
    const o: Record<string, unknown> = {};
    for (const [key, x] of Object.entries(v)) o[key] = markValue(x, picks, k);
    return o;
  }
  return v;
}

interface Call {
  id: string;
  name: string;
  args: string;
  result: string;
}

/**
 * A real reply with think markers written into its tool blocks' arguments and results, and
 * think spans (closed) put into its text runs; with the calls it must read back as.
 */
function mutate(reply: string, picks: readonly number[], spans: readonly number[]): { text: string; calls: Call[] } {
  const { clean, items } = parseToolBlocks(reply);
  const out: string[] = [];
  const calls: Call[] = [];
  let s = 0;
  items.forEach((it: ReplyItem, n) => {
    if (it.kind === 'text') {
      const at = spans.length ? spans[n % spans.length]! % (it.text.length + 1) : it.text.length;
      out.push(it.text.slice(0, at) + (spans.length ? `${THINK_START}thought ${'```'}\n${THINK_END}\n` : '') + it.text.slice(at));
      return;
    }
    const k = { i: s++ };
    const args = markValue(it.args, picks, k) as Record<string, unknown>;
    const rec: Record<string, unknown> = { id: it.id, name: it.name, args };
    let result = '';
    if (it.result !== undefined) {
      rec.result = markValue(it.result, picks, k);
      result = typeof rec.result === 'string' ? rec.result : '';
    }
    if (it.server) rec.server = true;
    out.push(toolBlockText(rec));
    if (it.id !== null && !it.server) calls.push({ id: it.id, name: it.name, args: pyDumps(args), result: typeof it.result === 'string' ? result : '?' });
  });
  void clean;
  return { text: out.join(''), calls };
}

function callsOf(reply: string): Call[] {
  const h = fmt2hist(reply);
  const results = new Map<string, string>();
  for (const m of h) for (const p of m.content) if (p.type === 'tool_result') results.set(p.id, p.text);
  const out: Call[] = [];
  for (const m of h)
    for (const p of m.content) if (p.type === 'tool_use') out.push({ id: p.id, name: p.name, args: pyDumps(p.arguments), result: results.get(p.id) ?? '' });
  return out;
}

describe.skipIf(!HAVE_SHARED)('mutated real replies: think markers in tool JSON are data', () => {
  it('the real dialogs hold replies with tool blocks to mutate', () => {
    expect(replies.length).toBeGreaterThan(100);
  });

  it('every call comes back with its marked arguments and result, real spans around them removed', () => {
    const picks = fc.array(fc.nat(10_000), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.nat(replies.length - 1), picks, fc.array(fc.nat(10_000), { maxLength: 3 }), (r, p, sp) => {
        const { text, calls } = mutate(replies[r]!, p, sp);
        const got = callsOf(text);
        expect(got.map((c) => [c.id, c.name, c.args])).toEqual(calls.map((c) => [c.id, c.name, c.args]));
        got.forEach((c, i) => {
          if (calls[i]!.result !== '?') expect(c.result).toBe(calls[i]!.result);
        });
        if (sp.length) expect(fmt2hist(text).some((m) => m.content.some((x) => x.type === 'text' && x.text.includes('thought ```')))).toBe(false);
      }),
      fcParams(150),
    );
  }, 120_000);
});

describe.skipIf(!HAVE_SHARED)('mutated slices of real dialogs: compacting twice changes nothing', () => {
  const cellsOf = names.map((_n, i) => (JSON.parse(texts[i]!) as { cells: Record<string, unknown>[] }).cells);
  it('compact, write, read back, compact again: the same bytes', () => {
    fc.assert(
      fc.property(
        fc.nat(names.length - 1),
        fc.nat(10_000),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.nat(10_000), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(10_000), { maxLength: 3 }),
        fc.integer({ min: 1, max: 40 }),
        (d, from, len, p, sp, repeat) => {
          const all = cellsOf[d]!;
          const start = from % all.length;
          const cells = all.slice(start, start + len).map((c) => structuredClone(c));
          for (const c of cells) {
            const src = Array.isArray(c.source) ? c.source.join('') : String(c.source);
            const meta = c.metadata as Record<string, unknown> | undefined;
            if (c.cell_type !== 'markdown' || !meta?.solveit_ai) continue;
            const sep = src.indexOf('\n\n##### 🤖Reply🤖');
            if (sep < 0) continue;
            const dlg = readsIpynb(JSON.stringify({ cells: [c], metadata: {}, nbformat: 4, nbformat_minor: 5 }), 'one');
            const m = dlg.messages[0]!;
            const reply = parseToolBlocks(m.reply).items.some((x) => x.kind === 'tool') ? mutate(m.reply, p, sp).text : marked(m.reply, sp);
            m.content = m.content.repeat(repeat);
            c.source = dumpsCell(dlg);
            void reply;
            const d2 = readsIpynb(JSON.stringify({ cells: [c], metadata: {}, nbformat: 4, nbformat_minor: 5 }), 'one');
            d2.messages[0]!.reply = reply;
            c.source = (JSON.parse(dumpsIpynb(d2)) as { cells: { source: string[] }[] }).cells[0]!.source;
          }
          const nb = JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 });
          const once = dumpsIpynb(compactDialog(readsIpynb(nb, 'm.ipynb')));
          expect(dumpsIpynb(compactDialog(readsIpynb(once, 'm2.ipynb')))).toBe(once);
        },
      ),
      fcParams(60),
    );
  }, 300_000);
});

function dumpsCell(d: ReturnType<typeof readsIpynb>): string[] {
  return (JSON.parse(dumpsIpynb(d)) as { cells: { source: string[] }[] }).cells[0]!.source;
}
