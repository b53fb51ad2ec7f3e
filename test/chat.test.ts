/**
 * src/chat.ts: chat2dlg / dlg2chat.
 *
 * Sources of expected values:
 * - the reference's worked example (shared/seeds/000, "Dialog compaction"): the 12-message
 *   fixture conversation, `chat2dlg(conversation, 'demo')` gives three prompts, the asserted
 *   `compact_reply(d.messages[0].ai_res)` string, `Message.compact`, `Dialog.compact` with the
 *   small policy and `user_toks=100`, and `dlg2compact` of the dialog with a note and a code
 *   cell inserted;
 * - the conversation's JSON form in conformance/dsl.json (the `compact_chat` cases), which
 *   gives the reference's call ids (`call_<tool name>`);
 * - `compact_reply(d.messages[1].ai_res)` (printed, not shown, in the seed): the seed's
 *   asserted bash rendering `! printf "ready\n" ¶ ls -la` followed by `> ready`
 *   (compact_result of a short one-line result, SPEC §3);
 * - structural expectations worked out by hand from the rules in chat.ts's TSDoc.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chat2dlg, dlg2chat } from '../src/dialog/chat-bridge.js';
import { dlg2compact } from '../src/dialog/compact.js';
import { compactReply } from '../src/dsl/compact-reply.js';
import { InvalidArgumentError } from '../src/errors.js';
import { isLosslessNumber } from '../src/python/index.js';
import { mkMsg, toolPart, toolResult, type Msg } from '../src/chat/message.js';
import { dumpsIpynb, readsIpynb, validateDialog } from '../src/notebook/index.js';
import { fmt2hist } from '../src/chat/index.js';
import { lenToks } from '../src/tokens/index.js';
import { schemaErrors } from './nbschema.js';
import { cpuMs, HAVE_SHARED, shared } from './support.js';

/** The reference profile: the worked example pins the reference's renderings. */
const REF = { profile: 'reference' } as const;

// ---------------------------------------------------------------------------------------------
// The seed's fixture conversation, with the reference's call ids

const pythonStr = 'files = ["a.py", "b.py"]';
const bashStr = 'printf "ready\\n"\nls -la';
const resStr = 'first line\n\nsecond line\nfinal line';
const q1 = 'List the project files, use the project skill, then run a shell check.';
const skillText = 'Base directory for this skill: /skills/project-files\n\nInspect project files before editing.';
const q2 = 'Keep the agreed names; do not rename the fixture.';

/** The conversation; `withIds: false` leaves the results' ids empty (model.toolResult's default). */
function conversation(withIds = true): Msg[] {
  const res = (text: string, name: string): Msg => (withIds ? toolResult(text, name, `call_${name}`) : toolResult(text, name));
  return [
    mkMsg(q1),
    mkMsg(['I will inspect the project.', toolPart('mcp__clikernel__execute', { code: pythonStr }, 'call_mcp__clikernel__execute')], 'assistant'),
    res('files = ["a.py", "b.py"]', 'mcp__clikernel__execute'),
    mkMsg([toolPart('Skill', { skill: 'project-files' }, 'call_Skill')], 'assistant'),
    res('Skill loaded: project-files', 'Skill'),
    mkMsg(skillText),
    mkMsg([toolPart('Bash', { command: bashStr }, 'call_Bash')], 'assistant'),
    res('ready', 'Bash'),
    mkMsg(q2),
    mkMsg(['Understood. I will verify the final state.', toolPart('inspect', { path: 'fixture.json', lines: [1, 2] }, 'call_inspect')], 'assistant'),
    res(resStr, 'inspect'),
    mkMsg('The fixture is short, readable, and ready for the renderer.', 'assistant'),
  ];
}

/** The seed's asserted `compact_reply(d.messages[0].ai_res)`. */
const creply = [
  'I will inspect the project.',
  '```python',
  'files = ["a.py", "b.py"]',
  '```',
  '> files = ["a.py", "b.py"]',
  "▶ Skill(skill='project-files')",
  '> Skill loaded: project-files',
].join('\n');

/** Ids 00000001, 00000002, ... */
function counter(): () => string {
  let n = 0;
  return () => (++n).toString(16).padStart(8, '0');
}

/** JSON values with LosslessNumbers as JS numbers, for comparing parses with hand-built values. */
function plain(v: unknown): unknown {
  if (isLosslessNumber(v)) return Number(v.value);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

const dot: Msg = { role: 'assistant', content: [{ type: 'text', text: '.' }] };

describe.skipIf(!HAVE_SHARED)('the fixture conversation is the one of conformance/dsl.json', () => {
  it('equals the compact_chat input (12 messages, ids call_<name>)', () => {
    const cases = JSON.parse(readFileSync(shared('conformance', 'dsl.json'), 'utf8')) as { fn: string; args: unknown[] }[];
    const c = cases.find((x) => x.fn === 'compact_chat' && (x.args[0] as unknown[]).length === 12);
    expect(c).toBeDefined();
    expect(conversation()).toEqual(c?.args[0]);
  });
});

describe("chat2dlg: the seed's worked example", () => {
  it('makes one prompt per user message: three prompts', () => {
    const d = chat2dlg(conversation(), 'demo');
    expect(d.name).toBe('demo');
    expect(d.messages.map((m) => m.type)).toEqual(['prompt', 'prompt', 'prompt']);
    expect(d.messages.map((m) => m.content)).toEqual([q1, skillText, q2]);
  });

  it('compact_reply of the first reply is the asserted string', () => {
    const d = chat2dlg(conversation(), 'demo');
    const r = compactReply(d.messages[0]!.aiRes, REF);
    expect(r).toBe(creply);
    expect(r.includes('»') || r.includes('§')).toBe(false);
    expect(compactReply(d.messages[0]!.aiRes, REF, { mark: '»' }).split('\n')[0]).toBe('» I will inspect the project. »');
  });

  it('compact_reply of the second reply (the skill turn) is the bash call and its result', () => {
    const d = chat2dlg(conversation(), 'demo');
    expect(compactReply(d.messages[1]!.aiRes, REF)).toBe('! printf "ready\\n" ¶ ls -la\n> ready');
  });

  it('Message.compact: the question stays, the reply becomes the DSL rendering, the id stays', () => {
    const d = chat2dlg(conversation(), 'demo');
    const m = d.messages[0]!;
    const mid = m.id;
    expect(m.compact(REF)).toBe(m);
    expect(m.content).toBe(q1);
    expect(m.aiRes).toBe(creply);
    expect(m.id).toBe(mid);
    const nte = d.mkMessage('A curated note with **important** rationale.', { type: 'note' });
    expect(nte.compact(REF)).toBe(nte);
    expect(nte.content).toBe('A curated note with **important** rationale.');
  });

  it('Dialog.compact with the small policy and user_toks=100', () => {
    const d2 = chat2dlg(conversation(), 'demo2');
    const ids = d2.messages.map((m) => m.id);
    const before = d2.messages.reduce((n, m) => n + lenToks(m.aiRes), 0);
    d2.compact({ userToks: 100, asstToks: 8, callToks: 8, resultToks: 6, profile: 'reference' });
    expect(d2.messages.map((m) => m.id)).toEqual(ids);
    expect(d2.messages[2]!.content).toBe(q2);
    expect(d2.messages.reduce((n, m) => n + lenToks(m.aiRes), 0)).toBeLessThan(before);
    expect(d2.messages[2]!.aiRes).toContain(' … ');
    expect(() => validateDialog(d2)).not.toThrow();
  });

  it('dlg2compact with a note before and a code cell after the first prompt', () => {
    const d3 = chat2dlg(conversation(), 'mixed');
    d3.mkMessage('## Project notes', { type: 'note', before: d3.messages[0] });
    d3.mkMessage(pythonStr, { type: 'code', output: [{ output_type: 'stream', name: 'stdout', text: '2 files' }], after: d3.messages[1] });
    const doc3 = dlg2compact(d3, REF);
    expect(doc3.split('\n\n***\n\n').length - 1).toBe(2);
    expect(doc3).toContain('§ ## Project notes §');
    expect(doc3).toContain('» I will inspect the project. »');
    expect(doc3.split('#_').length - 1).toBe(1);
    expect(doc3).not.toContain('<markdown');
  });
});

describe('chat2dlg: the dialog as a notebook', () => {
  it('validates and is written schema-valid', () => {
    const d = chat2dlg(conversation(), 'demo', { newId: counter() });
    expect(() => validateDialog(d)).not.toThrow();
    expect(d.messages.map((m) => m.id)).toEqual(['00000001', '00000002', '00000003']);
    const text = dumpsIpynb(d);
    if (HAVE_SHARED) expect(schemaErrors(text)).toBe('');
    const back = readsIpynb(text);
    expect(back.messages.map((m) => [m.id, m.type, m.content, m.reply])).toEqual(d.messages.map((m) => [m.id, m.type, m.content, m.reply]));
    expect(dumpsIpynb(back)).toBe(text);
  });

  // fmt2hist reads two tool blocks with only blank lines between them as calls of one
  // assistant message, answered by one tool message: turn 0's two call/result pairs merge.
  const c0 = conversation();
  const turn0: Msg[] = [
    { role: 'assistant', content: [...c0[1]!.content, ...c0[3]!.content] },
    { role: 'tool', content: [...c0[2]!.content, ...c0[4]!.content] },
    dot,
  ];
  const turns: [number, Msg[]][] = [
    [0, turn0],
    [1, [...conversation().slice(6, 8), dot]],
    [2, conversation().slice(9, 12)],
  ];
  it.each(turns)('fmt2hist of reply %i gives back the assistant/tool messages of its turn', (k, msgs) => {
    const d = chat2dlg(conversation());
    expect(plain(fmt2hist(d.messages[k]!.reply))).toEqual(msgs);
  });

  it('results without ids are paired with their calls by name: same replies', () => {
    const a = chat2dlg(conversation(true)).messages.map((m) => m.reply);
    const b = chat2dlg(conversation(false)).messages.map((m) => m.reply);
    expect(b).toEqual(a);
  });

  it('dlg2chat undoes chat2dlg, up to merged call pairs and the placeholder after a final tool result', () => {
    const c = conversation();
    const expected = [c[0], ...turn0, ...c.slice(5, 8), dot, ...c.slice(8)];
    expect(plain(dlg2chat(chat2dlg(c)))).toEqual(expected);
  });

  it('does not modify its input', () => {
    const c = conversation(false);
    const copy = JSON.parse(JSON.stringify(c)) as Msg[];
    chat2dlg(c);
    expect(c).toEqual(copy);
  });
});

describe('chat2dlg: grouping rules', () => {
  const a = (text: string): Msg => mkMsg(text, 'assistant');

  it('joins the text parts of a user message with a blank line, verbatim', () => {
    const d = chat2dlg([mkMsg(['  first part ', 'second\n']), a('ok')]);
    expect(d.messages.map((m) => [m.type, m.content, m.reply])).toEqual([['prompt', '  first part \n\nsecond\n', 'ok']]);
  });

  it('gives leading assistant messages a prompt with empty content', () => {
    const d = chat2dlg([a('Hello, how can I help?'), mkMsg('Hi'), a('Hi there.')]);
    expect(d.messages.map((m) => [m.type, m.content, m.reply])).toEqual([
      ['prompt', '', 'Hello, how can I help?'],
      ['prompt', 'Hi', 'Hi there.'],
    ]);
  });

  it('makes a raw message of a system message, which closes the turn', () => {
    const d = chat2dlg([
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      mkMsg('q'),
      a('one'),
      { role: 'system', content: [{ type: 'text', text: 'Now in French.' }] },
      a('deux'),
    ]);
    expect(d.messages.map((m) => [m.type, m.content, m.reply])).toEqual([
      ['raw', 'Be brief.', ''],
      ['prompt', 'q', 'one'],
      ['raw', 'Now in French.', ''],
      ['prompt', '', 'deux'],
    ]);
    expect(dlg2chat(d)).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
      { role: 'system', content: [{ type: 'text', text: 'Now in French.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'deux' }] },
    ]);
  });

  it('gives an unanswered user message a prompt without reply, written without the separator', () => {
    const d = chat2dlg([mkMsg('first'), mkMsg('second'), a('answer')], 'x', { newId: counter() });
    expect(d.messages.map((m) => [m.content, m.reply])).toEqual([
      ['first', ''],
      ['second', 'answer'],
    ]);
    const text = dumpsIpynb(d);
    expect(text).toContain('"source": [\n    "first"\n   ]');
    expect(readsIpynb(text).messages.map((m) => [m.type, m.content, m.reply])).toEqual([
      ['prompt', 'first', ''],
      ['prompt', 'second', 'answer'],
    ]);
    expect(dlg2chat(d)).toEqual([mkMsg('first'), mkMsg('second'), a('answer')]);
  });

  it('keeps a user result fence (as fmt2hist cuts it out) inside the reply', () => {
    const h = fmt2hist('Look:\n`````result\n42\n`````\nDone.');
    expect(h.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant']);
    const d = chat2dlg([mkMsg('q'), ...h]);
    expect(d.messages.length).toBe(1);
    expect(fmt2hist(d.messages[0]!.reply)).toEqual(h);
  });

  it('pairs id-less results by name, in call order, whatever order they come in', () => {
    const calls = mkMsg([toolPart('X', { n: 1 }, 'x1'), toolPart('Y', { n: 2 }, 'y1'), toolPart('X', { n: 3 }, 'x2')], 'assistant');
    const results: Msg = {
      role: 'tool',
      content: [
        { type: 'tool_result', id: '', name: 'Y', text: 'from Y' },
        { type: 'tool_result', id: 'x2', name: 'X', text: 'second X' },
        { type: 'tool_result', id: '', name: 'X', text: 'first X' },
      ],
    };
    const d = chat2dlg([mkMsg('q'), calls, results]);
    const back = fmt2hist(d.messages[0]!.reply);
    expect(back[1]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool_result', id: 'x1', name: 'X', text: 'first X' },
        { type: 'tool_result', id: 'y1', name: 'Y', text: 'from Y' },
        { type: 'tool_result', id: 'x2', name: 'X', text: 'second X' },
      ],
    });
  });

  it('leaves skipped messages, notes and code cells out of dlg2chat', () => {
    const d = chat2dlg([mkMsg('q'), a('r'), mkMsg('q2'), a('r2')]);
    d.messages[0]!.skipped = true;
    d.mkMessage('a note', { type: 'note' });
    d.mkMessage('print(1)', { type: 'code' });
    expect(dlg2chat(d)).toEqual([mkMsg('q2'), a('r2')]);
  });

  it('is linear: 20,000 turns', () => {
    const msgs: Msg[] = [];
    for (let i = 0; i < 20000; i++) msgs.push(mkMsg(`q${i}`), a(`r${i}`));
    const t = cpuMs();
    const d = chat2dlg(msgs);
    expect(d.messages.length).toBe(20000);
    expect(new Set(d.messages.map((m) => m.id)).size).toBe(20000);
    expect(cpuMs() - t).toBeLessThan(5000);
  });
});

describe('chat2dlg: errors', () => {
  const err = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidArgumentError);
      return (e as Error).message;
    }
    throw new Error('expected an InvalidArgumentError');
  };

  it('rejects a non-array and non-messages', () => {
    expect(err(() => chat2dlg('hi' as unknown as Msg[]))).toContain('array');
    expect(err(() => chat2dlg([null as unknown as Msg]))).toContain('message 0 is not a message');
  });

  it('rejects an unknown role', () => {
    expect(err(() => chat2dlg([{ role: 'robot', content: [] } as unknown as Msg]))).toContain('unknown role "robot"');
  });

  it('rejects media in a user message', () => {
    expect(err(() => chat2dlg([mkMsg(['look', { type: 'image', text: 'data:image/png;base64,AAAA' }])]))).toContain(
      'user message 0 holds a part of type "image"',
    );
  });

  it('rejects a user text holding the reply separator', () => {
    expect(err(() => chat2dlg([mkMsg('a\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\nb')]))).toContain('reply separator');
  });

  it('names where the reply starts when hist2fmt refuses it', () => {
    const msg = err(() => chat2dlg([mkMsg('q'), mkMsg('a'), toolResult('orphan', 'X', 'id1')]));
    expect(msg).toContain('starts at message 2');
  });

  it('rejects a result that answers no call', () => {
    expect(err(() => chat2dlg([mkMsg('q'), mkMsg([toolPart('X', {}, 'x1')], 'assistant'), toolResult('r', 'Z')]))).toContain('answers no call');
  });

  it('rejects an id source that keeps repeating', () => {
    expect(err(() => chat2dlg([mkMsg('a'), mkMsg('b')], 'x', { newId: () => 'same' }))).toContain('fresh cell id');
  });

  it('dlg2chat rejects a non-Dialog', () => {
    expect(err(() => dlg2chat({ messages: [] } as never))).toContain('expected a Dialog');
  });
});
