/**
 * Micro-compaction of dialogs (src/dialog-micro.ts): hand-made replies in the current and both
 * legacy spellings with exact expected texts, the splice fallback, idempotence, options; and
 * real dialogs of ../shared/conformance/dialogs, where the expected cleared set and the expected
 * fmt2hist of every changed reply are derived from NNN.parts.json (the reference's fmt2hist),
 * the expected reply text by a plain text substitution, and the written notebook is checked
 * against the nbformat schema.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Dialog } from '../src/dialog/dialog.js';
import { Message } from '../src/dialog/message.js';
import { microCompactDialog as microCompactWith, planDialogMicro as planWith, type DialogMicroOptions } from '../src/dialog/micro.js';

// These tests pin the reference placeholder `[Previous: used NAME]`: they run under the
// reference profile (the clean profile's sized placeholder is tested in test/never-summarise.test.ts).
const REFERENCE = { profile: 'reference' } as const;
const microCompactDialog = (d: Dialog, o?: DialogMicroOptions) => microCompactWith(d, { ...REFERENCE, ...o });
const planDialogMicro = (d: Dialog, o?: DialogMicroOptions) => planWith(d, { ...REFERENCE, ...o });
import '../src/dialog/summarize.js';
import { InvalidArgumentError } from '../src/errors.js';
import { parseJson, pyDumps, pyJsonString } from '../src/python/index.js';
import { dumpsIpynb, readsIpynb, validateDialog } from '../src/notebook/index.js';
import { fmt2hist, parseToolBlocks } from '../src/chat/index.js';
import { lenToks } from '../src/tokens/index.js';
import { schemaErrors } from './nbschema.js';
import { HAVE_SHARED, shared } from './support.js';

const dump = (v: unknown): string => pyDumps(v, { ensureAscii: false, sortKeys: true });
const long = (tag: string, n = 150): string => `${tag}:` + 'x'.repeat(n);

/** A current-form block as Python json.dumps(indent=2, ensure_ascii=False) writes it. */
function block(o: Record<string, unknown>): string {
  return '```json {.tool}\n' + JSON.stringify(o, null, 2) + '\n```';
}

function prompt(id: string, reply: string, extra: Partial<Message> = {}): Message {
  const m = new Message(`question ${id}`, { type: 'prompt', id });
  m.reply = reply;
  Object.assign(m, extra);
  return m;
}

function ids(d: Dialog): string {
  return d.messages.map((m) => m.id).join(',');
}

describe('microCompactDialog: current json {.tool} blocks', () => {
  const calls = [
    { id: 't1', name: 'bash', args: { cmd: 'ls' }, result: long('r1') },
    { id: 't2', name: 'read_file', args: { path: 'a.py' }, result: long('r2') },
    { id: 't3', name: 'bash', args: { cmd: 'pwd' }, result: 'short' },
    { id: 't4', name: 'tools.bash', args: { cmd: 'date' }, result: long('r4') },
    { id: 't5', name: 'bash', args: { cmd: 'whoami' }, result: long('r5') },
    { id: 't6', name: 'bash', args: { cmd: 'id' }, result: long('r6') },
    { id: 't7', name: 'bash', args: { cmd: 'uname' }, result: long('r7') },
  ];
  const replyA = 'Let me look.\n\n' + block(calls[0]) + '\n\n' + block(calls[1]) + '\n\nNow:\n\n' + block(calls[2]);
  const replyB = block(calls[3]) + '\n\nMore.\n\n' + block(calls[4]) + '\n\n' + block(calls[5]) + '\n\n' + block(calls[6]) + '\n\nDone.';
  const make = (): Dialog =>
    new Dialog(
      [new Message('# notes', { type: 'note', id: 'n1' }), prompt('pA', replyA), new Message('x = 1', { type: 'code', id: 'c1' }), prompt('pB', replyB)],
      { name: 'hand' },
    );
  const ph = (name: string): string => `[Previous: used ${name}]`;

  it('clears old long results of unpreserved tools, keeps the newest 3, edits only the result', () => {
    const d = make();
    const before = dumpsIpynb(d);
    const r = microCompactDialog(d);
    expect(r.changed).toBe(true);
    expect(r.refused).toEqual([]);
    expect(r.cleared).toEqual([
      { messageId: 'pA', callId: 't1', tool: 'bash', charsBefore: 153 },
      { messageId: 'pB', callId: 't4', tool: 'tools.bash', charsBefore: 153 },
    ]);
    const wantA = 'Let me look.\n\n' + block({ ...calls[0], result: ph('bash') }) + '\n\n' + block(calls[1]) + '\n\nNow:\n\n' + block(calls[2]);
    const wantB = block({ ...calls[3], result: ph('tools.bash') }) + replyB.slice(block(calls[3]).length);
    expect(d.get('pA')!.reply).toBe(wantA);
    expect(d.get('pB')!.reply).toBe(wantB);
    expect(ids(d)).toBe('n1,pA,c1,pB');
    // Everything else in the written notebook is as before.
    const ref = readsIpynb(before);
    ref.get('pA')!.reply = wantA;
    ref.get('pB')!.reply = wantB;
    expect(dumpsIpynb(d)).toBe(dumpsIpynb(ref));
  });

  it('reports token totals of the AI-visible text (o200k_base)', () => {
    const d = make();
    const visible = (x: Dialog): number => x.messages.reduce((s, m) => s + lenToks(m.content) + lenToks(m.reply), 0);
    const before = visible(d);
    const r = microCompactDialog(d);
    expect(r.tokensBefore).toBe(before);
    expect(r.tokensAfter).toBe(visible(d));
    expect(r.tokensAfter).toBeLessThan(r.tokensBefore);
  });

  it('keeps the calls: fmt2hist gives the same calls and the placeholder as result', () => {
    const d = make();
    const old = fmt2hist(d.get('pB')!.reply);
    microCompactDialog(d);
    const now = fmt2hist(d.get('pB')!.reply);
    const calls = (h: ReturnType<typeof fmt2hist>) => h.flatMap((m) => m.content.filter((p) => p.type === 'tool_use'));
    expect(dump(calls(now))).toBe(dump(calls(old)));
    const results = now.flatMap((m) => m.content.filter((p) => p.type === 'tool_result')) as Array<{ id: string; text: string }>;
    expect(results.map((p) => [p.id, p.text.slice(0, 10)])).toEqual([
      ['t4', '[Previous:'],
      ['t5', 'r5:xxxxxxx'],
      ['t6', 'r6:xxxxxxx'],
      ['t7', 'r7:xxxxxxx'],
    ]);
  });

  it('is idempotent, and plan = what a run does, without changing the dialog', () => {
    const d = make();
    const before = dumpsIpynb(d);
    const plan = planDialogMicro(d);
    expect(dumpsIpynb(d)).toBe(before);
    const r = d.microCompact(REFERENCE);
    expect(plan).toEqual({ cleared: r.cleared, refused: r.refused, tokensBefore: r.tokensBefore, tokensAfter: r.tokensAfter });
    const once = dumpsIpynb(d);
    const again = microCompactDialog(d, { minChars: 0 });
    expect(again.cleared.map((c) => c.callId)).toEqual(['t3']);
    const third = microCompactDialog(d, { minChars: 0 });
    expect(third.changed).toBe(false);
    expect(third.cleared).toEqual([]);
    expect(microCompactDialog(readsIpynb(once)).changed).toBe(false);
  });

  it('options: keepRecent, minChars, preserveTools (a leading tools. is ignored)', () => {
    expect(planDialogMicro(make(), { keepRecent: 0 }).cleared.map((c) => c.callId)).toEqual(['t1', 't4', 't5', 't6', 't7']);
    expect(planDialogMicro(make(), { keepRecent: 0, minChars: 153 }).cleared).toEqual([]);
    expect(planDialogMicro(make(), { keepRecent: 0, preserveTools: ['bash'] }).cleared.map((c) => c.callId)).toEqual(['t2']);
    expect(planDialogMicro(make(), { keepRecent: 0, preserveTools: ['tools.bash'] }).cleared.map((c) => c.callId)).toEqual(['t2']);
    expect(planDialogMicro(make(), { keepRecent: 7 }).cleared).toEqual([]);
    expect(planDialogMicro(make(), { keepRecent: 6, preserveTools: [] }).cleared.map((c) => c.callId)).toEqual(['t1']);
  });

  it('rejects bad options with a typed error', () => {
    expect(() => microCompactDialog(make(), { keepRecent: -1 })).toThrow(InvalidArgumentError);
    expect(() => microCompactDialog(make(), { minChars: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => microCompactDialog(make(), { preserveTools: 'bash' as unknown as string[] })).toThrow(InvalidArgumentError);
    expect(() => microCompactDialog(make(), { countTokens: () => -1 })).toThrow(InvalidArgumentError);
    expect(() => microCompactDialog({} as Dialog)).toThrow(InvalidArgumentError);
  });
});

describe('microCompactDialog: which blocks take part', () => {
  it('ignores server calls, id-less blocks, blocks without a result and skipped prompts', () => {
    const reply =
      block({ id: 's1', name: 'web', args: {}, result: long('srv'), server: true }) +
      '\n\n' +
      block({ name: 'noid', args: {}, result: long('noid') }) +
      '\n\n' +
      block({ id: 'a1', name: 'bash', args: {} }) +
      '\n\n' +
      block({ id: 'a2', name: 'bash', args: {}, result: long('a2') });
    const skippedReply = block({ id: 'k1', name: 'bash', args: {}, result: long('k1') });
    const d = new Dialog([prompt('p1', reply), prompt('p2', skippedReply, { skipped: true })]);
    const r = microCompactDialog(d, { keepRecent: 0 });
    expect(r.cleared.map((c) => c.callId)).toEqual(['a2']);
    expect(d.get('p2')!.reply).toBe(skippedReply);
    expect(d.get('p1')!.reply).toBe(reply.replace(JSON.stringify(long('a2')), '"[Previous: used bash]"'));
  });

  it('counts results across cells in dialog order, and an empty name as unknown', () => {
    const d = new Dialog([
      prompt('p1', block({ id: 'x1', name: '', args: {}, result: long('x1') })),
      prompt('p2', block({ id: 'x2', name: 'bash', args: {}, result: long('x2') })),
    ]);
    const r = microCompactDialog(d, { keepRecent: 1 });
    expect(r.cleared).toEqual([{ messageId: 'p1', callId: 'x1', tool: '', charsBefore: 153 }]);
    expect(d.get('p1')!.reply).toContain('"result": "[Previous: used unknown]"');
  });

  it('clears a non-string result (its text view is what the AI sees)', () => {
    const res = { rows: Array.from({ length: 30 }, (_, i) => i) };
    const d = new Dialog([prompt('p1', block({ id: 'o1', name: 'query', args: {}, result: res }))]);
    const r = microCompactDialog(d, { keepRecent: 0 });
    expect(r.cleared.map((c) => c.callId)).toEqual(['o1']);
    expect(d.get('p1')!.reply).toBe(block({ id: 'o1', name: 'query', args: {}, result: '[Previous: used query]' }));
  });
});

describe('microCompactDialog: legacy envelopes', () => {
  const rec = (id: string, fn: string, args: Record<string, unknown>, result: string): string =>
    '```json\n' + JSON.stringify({ id, server: false, call: { function: fn, arguments: args }, result }, null, 2) + '\n```';
  const html = (id: string, fn: string, args: Record<string, unknown>, result: string): string =>
    `<details class='tool-usage-details' markdown='1'>\n<summary><code>${fn}()</code></summary>\n\n${rec(id, fn, args, result)}\n\n</details>`;
  const div = (id: string, fn: string, args: Record<string, unknown>, result: string): string =>
    `::: {.details .tool-usage-details}\n## ${fn}\n\n${rec(id, fn, args, result)}\n\n:::`;

  it('rewrites the result inside the ```json fence of HTML and pandoc envelopes', () => {
    const reply =
      'Start.\n\n\n\n' +
      html('h1', 'bash', { cmd: 'ls' }, long('h1')) +
      '\n\nMiddle.\n\n' +
      div('d1', 'tools.view', { path: '/x' }, long('d1')) +
      '\n\n' +
      html('h2', 'bash', { cmd: 'ls -l' }, long('h2')) +
      '\n\nEnd.';
    const d = new Dialog([prompt('p1', reply)]);
    const r = microCompactDialog(d, { keepRecent: 1 });
    expect(r.cleared.map((c) => [c.callId, c.tool])).toEqual([
      ['h1', 'bash'],
      ['d1', 'tools.view'],
    ]);
    const want =
      'Start.\n\n\n\n' +
      html('h1', 'bash', { cmd: 'ls' }, '[Previous: used bash]') +
      '\n\nMiddle.\n\n' +
      div('d1', 'tools.view', { path: '/x' }, '[Previous: used tools.view]') +
      '\n\n' +
      html('h2', 'bash', { cmd: 'ls -l' }, long('h2')) +
      '\n\nEnd.';
    expect(d.get('p1')!.reply).toBe(want);
  });

  it('leaves an escaped copy of an envelope inside a result alone', () => {
    const inner = html('q1', 'bash', {}, long('inner'));
    const reply = html('o1', 'bash', {}, 'quoted: ' + inner) + '\n\n' + html('o2', 'bash', {}, long('o2'));
    const d = new Dialog([prompt('p1', reply)]);
    const r = microCompactDialog(d, { keepRecent: 1 });
    expect(r.cleared.map((c) => c.callId)).toEqual(['o1']);
    expect(d.get('p1')!.reply).toBe(html('o1', 'bash', {}, '[Previous: used bash]') + '\n\n' + html('o2', 'bash', {}, long('o2')));
  });
});

describe('microCompactDialog: bodies that do not re-serialise', () => {
  it('splices the result token of a body with unusual spacing', () => {
    const body = '{"id": "s1",   "name": "bash", "args": {"cmd": "x"},\n "result": ' + JSON.stringify(long('s1')) + ' }';
    const reply = 'Go.\n\n```json {.tool}\n' + body + '\n```\n\nOk.';
    const d = new Dialog([prompt('p1', reply)]);
    microCompactDialog(d, { keepRecent: 0 });
    expect(d.get('p1')!.reply).toBe(reply.replace(JSON.stringify(long('s1')), '"[Previous: used bash]"'));
  });

  it('with repeated result keys replaces the one the parser keeps (the last)', () => {
    const body = '{"id": "d1", "name": "bash", "args": {}, "result": "first", "result": ' + JSON.stringify(long('second')) + '}';
    const reply = '```json {.tool}\n' + body + '\n```';
    const d = new Dialog([prompt('p1', reply)]);
    const r = microCompactDialog(d, { keepRecent: 0 });
    expect(r.cleared[0]!.charsBefore).toBe(157);
    expect(d.get('p1')!.reply).toBe('```json {.tool}\n{"id": "d1", "name": "bash", "args": {}, "result": "first", "result": "[Previous: used bash]"}\n```');
  });

  it('keeps ASCII escaping when the body was written with it', () => {
    const body = '{\n  "id": "e1",\n  "name": "caf\\u00e9",\n  "args": {},\n  "result": "' + 'd\\u00e9j\\u00e0 '.repeat(30) + '"\n}';
    const reply = '```json {.tool}\n' + body + '\n```';
    const d = new Dialog([prompt('p1', reply)]);
    microCompactDialog(d, { keepRecent: 0 });
    expect(d.get('p1')!.reply).toBe(
      '```json {.tool}\n{\n  "id": "e1",\n  "name": "caf\\u00e9",\n  "args": {},\n  "result": "[Previous: used caf\\u00e9]"\n}\n```',
    );
  });

  it('keeps CRLF line breaks and 4-space indentation', () => {
    const body = JSON.stringify({ id: 'w1', name: 'bash', args: { a: 1 }, result: long('w1') }, null, 4);
    const reply = 'Hi.\r\n\r\n```json {.tool}\r\n' + body + '\r\n```\r\n';
    const d = new Dialog([prompt('p1', reply)]);
    microCompactDialog(d, { keepRecent: 0 });
    const want = JSON.stringify({ id: 'w1', name: 'bash', args: { a: 1 }, result: '[Previous: used bash]' }, null, 4);
    expect(d.get('p1')!.reply).toBe('Hi.\r\n\r\n```json {.tool}\r\n' + want + '\r\n```\r\n');
  });
});

// ---------------------------------------------------------------------------------------------
// Real dialogs

interface Parts {
  replies: Array<{ id: string; msgs: Array<{ role: string; content: Array<Record<string, unknown>> }> }>;
}

/** Every dialog of the manifest with the default options, plus a few with other keepRecent values. */
const REAL: Array<[string, { keepRecent?: number }]> = HAVE_SHARED
  ? [
      ...(JSON.parse(readFileSync(shared('conformance', 'dialogs', 'manifest.json'), 'utf8')) as Array<{ name: string }>).map(
        (e) => [e.name, {}] as [string, { keepRecent?: number }],
      ),
      ['odd-004', { keepRecent: 1 }],
      ['odd-004', { keepRecent: 0 }],
      ['021', { keepRecent: 0 }],
      ['010', { keepRecent: 10 }],
    ]
  : [];

const bare = (n: string): string => (n.startsWith('tools.') ? n.slice(6) : n);
const cps = (s: string): number => [...s].length;

describe.skipIf(!HAVE_SHARED)('microCompactDialog on real dialogs (expected from NNN.parts.json)', () => {
  const dir = (f: string): string => shared('conformance', 'dialogs', f);

  it.each(REAL)('dialog %s %j', (name, opts) => {
    const text = readFileSync(dir(`${name}.ipynb`), 'utf8');
    const parts = parseJson(readFileSync(dir(`${name}.parts.json`), 'utf8')) as Parts;
    const d = readsIpynb(text, name);
    const keep = opts.keepRecent ?? 3;

    // Expected cleared set, from the reference's fmt2hist of each reply.
    type Ent = { reply: number; msg: number; part: number; id: string; name: string; text: string };
    const ents: Ent[] = [];
    parts.replies.forEach((r, ri) => {
      if (d.get(r.id)!.skipped) return;
      r.msgs.forEach((m, mi) =>
        m.content.forEach((p, pi) => {
          if (p.type === 'tool_result') ents.push({ reply: ri, msg: mi, part: pi, id: p.id as string, name: p.name as string, text: p.text as string });
        }),
      );
    });
    const want = ents.slice(0, Math.max(0, ents.length - keep)).filter((e) => cps(e.text) > 100 && bare(e.name) !== 'read_file');

    const oldReplies = new Map(d.messages.map((m) => [m.id, m.reply]));
    const r = microCompactDialog(d, opts);
    expect(r.refused).toEqual([]);
    expect(r.cleared.map((c) => [c.messageId, c.callId, c.tool, c.charsBefore])).toEqual(
      want.map((e) => [parts.replies[e.reply]!.id, e.id, e.name, cps(e.text)]),
    );
    expect(r.changed).toBe(want.length > 0);

    // fmt2hist of every reply: the reference's, with exactly the cleared results replaced.
    const clearedAt = new Set(want.map((e) => `${e.reply}/${e.msg}/${e.part}`));
    parts.replies.forEach((rp, ri) => {
      const expected = rp.msgs.map((m, mi) => ({
        ...m,
        content: m.content.map((p, pi) => (clearedAt.has(`${ri}/${mi}/${pi}`) ? { ...p, text: `[Previous: used ${p.name as string}]` } : p)),
      }));
      expect(dump(fmt2hist(d.get(rp.id)!.reply))).toBe(dump(expected));
    });

    // The reply text: each cleared result's JSON string token replaced, nothing else.
    const ref = readsIpynb(text, name);
    const byMsg = new Map<string, Ent[]>();
    for (const e of want) {
      const id = parts.replies[e.reply]!.id;
      byMsg.set(id, [...(byMsg.get(id) ?? []), e]);
    }
    for (const [id, list] of byMsg) {
      let reply = oldReplies.get(id)!;
      let from = 0;
      for (const e of list) {
        let at = -1;
        let tok = '';
        for (const ascii of [false, true]) {
          tok = '"result": ' + pyJsonString(e.text, ascii);
          at = reply.indexOf(tok, from);
          if (at >= 0) break;
        }
        expect(at).toBeGreaterThanOrEqual(0);
        // (tool names in these dialogs are ASCII, so the escaping mode does not matter here)
        const repl = '"result": ' + pyJsonString(`[Previous: used ${e.name}]`, false);
        reply = reply.slice(0, at) + repl + reply.slice(at + tok.length);
        from = at + repl.length;
      }
      ref.get(id)!.reply = reply;
    }
    const out = dumpsIpynb(d);
    expect(out).toBe(dumpsIpynb(ref));
    expect(schemaErrors(out)).toBe('');
    validateDialog(d);

    // Idempotent.
    expect(microCompactDialog(d, opts).changed).toBe(false);
  });

  it('020 (current spelling) and 021 (legacy spelling) clear the same calls', () => {
    const walk = (name: string): string[] => {
      const d = readsIpynb(readFileSync(dir(`${name}.ipynb`), 'utf8'), name);
      const order: string[] = [];
      for (const m of d.messages) {
        if (m.type !== 'prompt') continue;
        for (const it of parseToolBlocks(m.reply).items) if (it.kind === 'tool' && it.id !== null && !it.server) order.push(it.id);
      }
      const r = microCompactDialog(d);
      return r.cleared.map((c) => `${order.indexOf(c.callId)}:${bare(c.tool)}`);
    };
    const a = walk('020');
    expect(a.length).toBe(14);
    expect(walk('021')).toEqual(a);
  });
});
