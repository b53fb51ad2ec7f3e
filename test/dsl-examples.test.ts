/**
 * The reference documentation's worked example (shared/seeds/001, the 12-message fixture
 * conversation), as readable unit tests, plus edge cases and fast-check properties of the DSL
 * renderers and continuation documents (SPEC §1, §3–§5).
 *
 * Sources of expected values:
 * - the seed's assertions (`test_eq`, `test(…, str.startswith)`, `assert len_toks(…) <= …`);
 *   where the seed's *printed* output disagrees with its assertions or with
 *   conformance/dsl.json (`▶ Skill(name=…)`, `§ …compacted… §`), the fixture value is used;
 * - whole-conversation strings copied from conformance/dsl.json (case noted at each use);
 * - edge cases of pure string logic (budgets large enough that nothing is cut) computed with
 *   Python 3.11 running the reference's expressions (`re`, `str.strip`, `splitlines`, `repr`).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bashCall,
  callRenderers,
  compactAsst,
  compactCall,
  compactChat,
  compactMsg,
  compactPolicy,
  compactResult,
  compactText,
  compactTool,
  compactUser,
  dropDocState,
  fencedCode,
  genericCall,
  isPlumbing,
  isSkillText,
  resolvePolicy,
  argRenderer,
  SKILL_MARKER,
  type Policy,
} from '../src/dsl/render.js';
import {
  CONVERSATION_MARKER,
  LEGEND,
  NOTES_MARKER,
  TRANSCRIPT_MARKER,
  compactBody,
  compactContent,
  joinCompacts,
  skillNames,
} from '../src/dsl/continuation.js';
import { lenToks, truncToksMid } from '../src/tokens/index.js';
import { parseJson, pyStrip } from '../src/python/index.js';
import { mkMsg, toolPart, toolResult, type Msg, type ToolUsePart } from '../src/chat/message.js';
import { BudgetError, DocumentFormatError, InvalidArgumentError } from '../src/errors.js';
import { fcParams } from './support.js';

// ---------------------------------------------------------------------------------------------
// The seed's fixture conversation

const pythonStr = 'files = ["a.py", "b.py"]';
const bashStr = 'printf "ready\\n"\nls -la';
const resStr = 'first line\n\nsecond line\nfinal line';

const pythonPart = toolPart('mcp__clikernel__execute', { code: pythonStr }, 'call_mcp__clikernel__execute');
const bashPart = toolPart('Bash', { command: bashStr }, 'call_Bash');
const genericPart = toolPart('inspect', { path: 'fixture.json', lines: [1, 2] }, 'call_inspect');

const turn1: Msg[] = [
  mkMsg('List the project files, use the project skill, then run a shell check.'),
  mkMsg(['I will inspect the project.', pythonPart], 'assistant'),
  toolResult('files = ["a.py", "b.py"]', 'mcp__clikernel__execute'),
  mkMsg([toolPart('Skill', { skill: 'project-files' })], 'assistant'),
  toolResult('Skill loaded: project-files', 'Skill'),
  mkMsg('Base directory for this skill: /skills/project-files\n\nInspect project files before editing.'),
  mkMsg([bashPart], 'assistant'),
  toolResult('ready', 'Bash'),
];
const turn2: Msg[] = [
  mkMsg('Keep the agreed names; do not rename the fixture.'),
  mkMsg(['Understood. I will verify the final state.', genericPart], 'assistant'),
  toolResult(resStr, 'inspect'),
  mkMsg('The fixture is short, readable, and ready for the renderer.', 'assistant'),
];
const conversation = [...turn1, ...turn2];
const cmd = mkMsg('<command-name>/compact</command-name>\n<command-message>compact</command-message>');

const simple = '```python\nfiles = ["a.py", "b.py"]\n```';
const bashOut = '! printf "ready\\n" ¶ ls -la';
const callOut = "▶ inspect(path='fixture.json', lines=[1, 2])";
const userOut = '§ List the project files, use the project skill, then run a shell check. §';
const skillOut = '§ …skill text compacted: re-invoke before relying on it… §';
const policy: Policy = { userToks: 100, asstToks: 100, callToks: 40, resultToks: 20, profile: 'reference' };
const smallPolicy: Policy = { userToks: 8, asstToks: 8, callToks: 8, resultToks: 6, profile: 'reference' };

/** conformance/dsl.json, compact_chat [plumbed] 100/100/40/20 last_n=5 (equal to [conv] by the seed's assertion). */
const compactExpected = [
  userOut,
  '» I will inspect the project. »',
  simple,
  '> files = ["a.py", "b.py"]',
  "▶ Skill(skill='project-files')",
  '> Skill loaded: project-files',
  '',
  '***',
  '',
  skillOut,
  bashOut,
  '> ready',
  '',
  '***',
  '',
  '§ Keep the agreed names; do not rename the fixture. §',
  '» Understood. I will verify the final state. »',
  callOut,
  '> first line ¶ second line ¶ final line',
  '» The fixture is short, readable, and ready for the renderer. »',
].join('\n');

/** conformance/dsl.json, compact_chat [conv] 8/8/8/6 last_n=0. */
const smallExpected = [
  '§ List the …  check. §',
  '» I will inspect the project. »',
  '```python',
  'files … "]',
  '```',
  '> files … .py"]',
  "▶ Skill(skill='project-files')",
  '> Skill loaded: project-files',
  '',
  '***',
  '',
  '§ …skill …  it… §',
  '! printf " …  ls -la',
  '> ready',
  '',
  '***',
  '',
  '§ Keep the …  fixture. §',
  '» Understood …  state. »',
  '▶ inspect(path …  2])',
  '> first …  final line',
  '» The fixture …  renderer. »',
].join('\n');

describe('worked example (seed 001)', () => {
  it('has the 12-message fixture conversation', () => {
    expect(conversation).toHaveLength(12);
  });

  it('compactText keeps both ends within the budget', () => {
    const text = compactText('beginning ' + 'middle '.repeat(100) + ' ending', '§', 20);
    expect(text.startsWith('§ beginning')).toBe(true);
    expect(text.endsWith('ending §')).toBe(true);
    expect(lenToks(text)).toBeLessThanOrEqual(20);
  });

  it('compactResult joins lines with ¶, drops doc-state blocks, keeps 𝍁-wrapped results whole', () => {
    const result = compactResult(resStr, 20);
    expect(result).toBe('> first line ¶ second line ¶ final line');
    expect(compactResult('', 20)).toBe('>');
    expect(compactResult('<warn>\nRule violation: docs not read.\n</warn>\n' + resStr, 20)).toBe(result);
    expect(compactResult('<note>\nA doc-state nudge.\n</note>', 20)).toBe('>');
    const whole = 'keep me whole '.repeat(30);
    expect(compactResult('𝍁' + whole + '𝍁', 20)).toBe('> ' + whole.trim());
  });

  it('fencedCode picks a fence the code cannot close and keeps to the budget', () => {
    expect(fencedCode(pythonStr, 40)).toBe(simple);
    expect(fencedCode("s = '```text```'", 40)).toBe("```python\ns = '```text```'\n```");
    expect(fencedCode('before\n```\nafter', 40)).toBe('````python\nbefore\n```\nafter\n````');
    const truncated = fencedCode(pythonStr.repeat(20), 20);
    expect(truncated.startsWith('```python\n')).toBe(true);
    expect(truncated.endsWith('\n```')).toBe(true);
    expect(lenToks(truncated)).toBeLessThanOrEqual(20);
  });

  it('bashCall and genericCall', () => {
    expect(bashCall(bashStr, 30)).toBe(bashOut);
    expect(genericCall(genericPart.name, genericPart.arguments, 40)).toBe(callOut);
  });

  it('compactCall dispatches through the registry (tools. prefix removed; py and bash spellings)', () => {
    const codexPart = toolPart('tools.mcp__clikernel__execute', { code: pythonStr });
    expect([pythonPart, codexPart, bashPart, genericPart].map((p) => compactCall(p, 40))).toEqual([simple, simple, bashOut, callOut]);
    expect(compactCall(toolPart('py', { code: pythonStr }), 40)).toBe(simple);
    expect(compactCall(toolPart('bash', { cmd: bashStr }), 40)).toBe(bashOut);
  });

  it('compactUser marks prose, replaces skill text, drops plumbing', () => {
    expect(compactUser(turn1[0]!, 100)).toBe(userOut);
    expect(compactUser(turn1[5]!, 100)).toBe(skillOut);
    expect(compactUser(cmd, 100)).toBe('');
    expect(compactUser(mkMsg('<local-command-stdout>Compacted</local-command-stdout>'), 100)).toBe('');
  });

  it('compactAsst keeps prose and calls in order', () => {
    expect(compactAsst(turn1[1]!, 100, 40)).toBe(`» I will inspect the project. »\n${simple}`);
  });

  it('compactMsg dispatches on role', () => {
    const rendered = turn1.map((m) => compactMsg(m, policy));
    expect(rendered[0]).toBe(userOut);
    expect(rendered[1]).toBe(`» I will inspect the project. »\n${simple}`);
    expect(rendered[2]).toBe('> files = ["a.py", "b.py"]');
    expect(rendered[3]).toBe("▶ Skill(skill='project-files')");
    expect(rendered[5]).toBe(skillOut);
    expect(rendered[6]).toBe(bashOut);
    expect(rendered[7]).toBe('> ready');
  });

  it('compactChat groups user-led turns; trailing plumbing spends no last_n slot', () => {
    const compact = compactChat(conversation, policy, { lastN: 5 });
    expect(compact).toBe(compactExpected);
    expect(compact.split('\n\n***\n\n')).toHaveLength(3);
    expect(compact).toContain(skillOut);
    expect(compact).toContain('The fixture is short, readable, and ready for the renderer.');
    const plumbed = [...conversation, mkMsg('<local-command-stdout>Compacted</local-command-stdout>'), cmd];
    expect(compactChat(plumbed, policy, { lastN: 5 })).toBe(compact);
  });

  it('a small policy makes the cuts visible', () => {
    const small = compactChat(conversation, smallPolicy, { lastN: 0 });
    expect(small).toBe(smallExpected);
    expect(small).toContain(' … ');
    expect(lenToks(small)).toBeLessThan(lenToks(compactExpected));
  });

  it('compactContent / compactBody round trip, with and without notes', () => {
    const content = compactContent(smallExpected, '/tmp/session.jsonl');
    expect(content).toContain('## Conversation');
    expect(content).toContain('/tmp/session.jsonl');
    expect(content.startsWith(LEGEND)).toBe(true);
    expect(compactBody(content)).toBe(smallExpected);
    expect(compactBody(compactContent(smallExpected, '/tmp/session.jsonl', 'A useful note.'))).toBe(smallExpected);
  });

  it('the document asks to re-invoke the skills it compacted away', () => {
    const tailed = compactContent(compactExpected, '/tmp/session.jsonl');
    expect(tailed).toContain('re-invoke it: Skill(project-files)');
    expect(tailed.endsWith('re-invoke it: Skill(project-files).')).toBe(true);
    expect(compactBody(tailed)).toBe(compactExpected);
    expect(compactContent('§ hi §', '/tmp/session.jsonl')).not.toContain('Skill(');
  });

  it('joinCompacts skips empty segments', () => {
    expect(joinCompacts('first', '', 'second')).toBe('first\n\n***\n\nsecond');
    expect(joinCompacts()).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------
// Edge cases of the string rules (expected values from Python 3.11 on the reference's expressions)

describe('Python string semantics in the renderers', () => {
  it.each([
    ['a\u001cb\u0085c\u2028d\r\ne\u000bf\fg\u2029h', '> a \u00b6 b \u00b6 c \u00b6 d \u00b6 e \u00b6 f \u00b6 g \u00b6 h'],
    ['<warn>x</note></warn>keep<note>\n<warn>y</warn>\n</note> tail <warn>open', '> keep tail <warn>open'],
    ['\ud834\udf41\n  inner line\n\n  two  \n\ud834\udf41', '> inner line \u00b6 two'],
    ['\ud834\udf41\ud834\udf41', '> \ud834\udf41\ud834\udf41'],
    ['\ud834\udf41x\ud834\udf41', '> x'],
    ['\u3000\u00a0 \ud834\udf41 spaced \ud834\udf41 \u2003', '> spaced'],
    ['\ufeffbom\u200b', '> \ufeffbom\u200b'],
    ['<WARN>x</WARN><warn >y</warn >', '> <WARN>x</WARN><warn >y</warn >'],
  ])('compactResult(%j)', (input, expected) => {
    expect(compactResult(input, 200)).toBe(expected);
  });

  it('𝍁 counts as one character for the keep-whole rule, and a kept result ignores the budget', () => {
    expect(compactResult('𝍁𝍁', 200)).toBe('> 𝍁𝍁'); // two characters: not kept, markers stay
    expect(compactResult('𝍁 a long result that will not fit in one token 𝍁', 1)).toBe('> a long result that will not fit in one token');
  });

  it.each([
    ['a\n```\r\nb', '```python\na\n```\r\nb\n```'],
    ['a\u2028```\nb', '```python\na\u2028```\nb\n```'],
    ['x\n    ````\n   `````  \t\ny', '``````python\nx\n    ````\n   `````  \t\ny\n``````'],
    ['x\n``` python\n````\t\n', '`````python\nx\n``` python\n````\n`````'],
    ['\n\n  ```\n', '````python\n```\n````'],
  ])('fencedCode(%j)', (input, expected) => {
    expect(fencedCode(input, 200)).toBe(expected);
  });

  it('bashCall splits lines the Python way', () => {
    expect(bashCall('  \n ls -la \r\n\u0085 echo "a\\nb"\u2028pwd\n\n', 200)).toBe('! ls -la \u00b6 echo "a\\nb" \u00b6 pwd');
  });

  it.each([
    [
      '{"b": 1.0, "2": [1, 2.5e-5, 1e16, true, null], "s": "it\'s \\"q\\"", "n": "x\\ny\\\\nz", "u": "\\u00e9\\u200b\\t"}',
      "\u25b6 t(b=1.0, 2=[1, 2.5e-05, 1e+16, True, None], s='it\\'s \"q\"', n='x \u00b6 y\\ \u00b6 z', u='\u00e9\\u200b\\t')",
    ],
    [
      '{"big": 123456789012345678901234567890, "neg": -0.0, "nested": {"k": [{}, []]}}',
      "\u25b6 t(big=123456789012345678901234567890, neg=-0.0, nested={'k': [{}, []]})",
    ],
  ])('genericCall with arguments %s', (json, expected) => {
    expect(genericCall('t', parseJson(json) as Record<string, unknown>, 400)).toBe(expected);
  });

  it.each([
    ['\u001c\u0085\u3000<system-reminder>x', true],
    ['\ufeff<command-name>', false],
    ['\u200b<command-args>', false],
    [' \n\t<local-command-caveat>', true],
    ['<command-name >', false],
    ['x<command-name>', false],
    ['<Command-name>', false],
    ['<command-args>', true],
    ['<local-command-stdout>', true],
    ['<command-message>', true],
  ])('isPlumbing(%j) = %s', (text, expected) => {
    expect(isPlumbing(text)).toBe(expected);
  });

  it('skill text is recognised only at the very start', () => {
    expect(isSkillText('Base directory for this skill: /x')).toBe(true);
    expect(isSkillText(' Base directory for this skill: /x')).toBe(false);
    expect(compactUser(mkMsg(' Base directory for this skill: /x'), 100)).toBe('§ Base directory for this skill: /x §');
    expect(SKILL_MARKER).toBe('…skill text compacted: re-invoke before relying on it…');
  });

  it('compactUser keeps empty renderings, compactAsst drops them (as the reference)', () => {
    expect(compactUser(mkMsg(['a', 'b']), 0)).toBe('\n');
    expect(compactAsst(mkMsg(['a', 'b'], 'assistant'), 0, 0)).toBe('');
    expect(
      compactTool(
        {
          role: 'tool',
          content: [
            { type: 'tool_result', id: '', name: '', text: 'a' },
            { type: 'tool_result', id: '', name: '', text: 'b' },
          ],
        },
        0,
      ),
    ).toBe('\n');
  });
});

// ---------------------------------------------------------------------------------------------
// compactChat lifting rules (SPEC §4)

describe('compactChat turns and lifting', () => {
  const long = 'word '.repeat(40).trim();
  const u = (t: string) => mkMsg(t);
  const a = (t: string) => mkMsg(t, 'assistant');
  const tight: Policy = { userToks: 3, asstToks: 3, callToks: 20, resultToks: 20, profile: 'reference' };

  it('messages before the first user message form their own turn; other roles render nothing', () => {
    const msgs: Msg[] = [a('hi'), { role: 'system', content: [{ type: 'text', text: 'sys' }] }, u('q'), a('r')];
    expect(compactChat(msgs, policy)).toBe('» hi »\n\n***\n\n§ q §\n» r »');
  });

  it('lifts the last prompt and its last text-bearing reply, not earlier replies or tool calls', () => {
    const msgs: Msg[] = [u(long), a(long), u(long), a(long), mkMsg([toolPart('x', { a: 1 })], 'assistant'), a(long), toolResult('done', 'x')];
    const out = compactChat(msgs, tight, { lastN: 1 }).split('\n\n***\n\n');
    expect(out[0]).toBe(`${truncToksMid(`§ ${long} §`, 3)}\n${truncToksMid(`» ${long} »`, 3)}`);
    expect(out[1]).toBe([`§ ${long} §`, truncToksMid(`» ${long} »`, 3), '▶ x(a=1)', `» ${long} »`, '> done'].join('\n'));
  });

  it('plumbing and skill text open turns but are not prompts', () => {
    const msgs: Msg[] = [u(long), a(long), u('<system-reminder>x</system-reminder>'), a(long), u('Base directory for this skill: /s'), a('ok')];
    const out = compactChat(msgs, tight, { lastN: 1 }).split('\n\n***\n\n');
    // the one substantive prompt is lifted with the last text-bearing reply of its span ('ok')
    expect(out).toEqual([
      `§ ${long} §\n${truncToksMid(`» ${long} »`, 3)}`,
      truncToksMid(`» ${long} »`, 3),
      `${truncToksMid(`§ ${SKILL_MARKER} §`, 3)}\n» ok »`,
    ]);
  });

  it('lastN larger than the number of prompts lifts them all; 0 lifts none', () => {
    const msgs: Msg[] = [u(long), a(long)];
    expect(compactChat(msgs, tight, { lastN: 100 })).toBe(`§ ${long} §\n» ${long} »`);
    expect(compactChat(msgs, tight)).toBe(`${truncToksMid(`§ ${long} §`, 3)}\n${truncToksMid(`» ${long} »`, 3)}`);
  });

  it('an empty conversation renders empty', () => {
    expect(compactChat([])).toBe('');
  });
});

// ---------------------------------------------------------------------------------------------
// Policy, registry, bad input

describe('policy and registry', () => {
  it('the default policy is 2000/150/60/35 and frozen', () => {
    expect(compactPolicy).toEqual({ userToks: 2000, asstToks: 150, callToks: 60, resultToks: 35, profile: 'clean' });
    expect(Object.isFrozen(compactPolicy)).toBe(true);
  });

  it('a partial policy falls back per field', () => {
    expect(resolvePolicy()).toEqual(compactPolicy);
    expect(resolvePolicy({ callToks: 7 })).toEqual({ userToks: 2000, asstToks: 150, callToks: 7, resultToks: 35, profile: 'clean' });
    expect(resolvePolicy({ userToks: undefined, resultToks: 0 })).toEqual({ userToks: 2000, asstToks: 150, callToks: 60, resultToks: 0, profile: 'clean' });
    expect(resolvePolicy({ profile: 'reference' })).toEqual({ userToks: 2000, asstToks: 150, callToks: 60, resultToks: 35, profile: 'reference' });
    expect(resolvePolicy({ profile: undefined }).profile).toBe('clean');
  });

  it('rejects bad policies', () => {
    expect(() => resolvePolicy({ callToks: -1 })).toThrow(InvalidArgumentError);
    expect(() => resolvePolicy({ callToks: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => resolvePolicy({ user_toks: 5 } as never)).toThrow(InvalidArgumentError);
    expect(() => resolvePolicy({ profile: 'Clean' as never })).toThrow('resolvePolicy: profile must be "clean" or "reference", got "Clean"');
    expect(() => resolvePolicy({ profile: null as never })).toThrow(InvalidArgumentError);
    expect(() => compactChat([], { profile: 'strict' as never })).toThrow(InvalidArgumentError);
    expect(() => compactChat([], { asstToks: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => compactChat([], undefined, { lastN: -1 })).toThrow(InvalidArgumentError);
  });

  it('callers can register a renderer for their own tool', () => {
    const part: ToolUsePart = toolPart('run_sql', { query: 'select 1' });
    expect(compactCall(part, 40)).toBe("▶ run_sql(query='select 1')");
    callRenderers.set('run_sql', argRenderer(bashCall, 'query'));
    try {
      expect(compactCall(part, 40)).toBe('! select 1');
      expect(compactCall(toolPart('tools.run_sql', { query: 'select 2' }), 40)).toBe('! select 2');
    } finally {
      callRenderers.delete('run_sql');
    }
    expect(compactCall(toolPart('Bash', {}), 40)).toBe('! ');
    expect(() => compactCall(toolPart('py', { code: 5 }), 40)).toThrow(InvalidArgumentError);
  });
});

describe('bad input is rejected with typed errors', () => {
  const badBudgets = [-1, Number.NaN, 1.5, Infinity, -Infinity, '5', null, undefined];
  it.each(badBudgets.map((b) => [String(b), b] as const))('budget %s', (_s, b) => {
    const n = b as number;
    expect(() => compactText('x', '§', n)).toThrow(InvalidArgumentError);
    expect(() => compactResult('x', n)).toThrow(InvalidArgumentError);
    expect(() => fencedCode('x', n)).toThrow(InvalidArgumentError);
    expect(() => bashCall('x', n)).toThrow(InvalidArgumentError);
    expect(() => genericCall('x', {}, n)).toThrow(InvalidArgumentError);
    expect(() => compactCall(toolPart('x'), n)).toThrow(InvalidArgumentError);
    expect(() => compactUser(mkMsg('x'), n)).toThrow(InvalidArgumentError);
    expect(() => compactAsst(mkMsg('x', 'assistant'), n, 5)).toThrow(InvalidArgumentError);
    expect(() => compactAsst(mkMsg('x', 'assistant'), 5, n)).toThrow(InvalidArgumentError);
    expect(() => compactTool(toolResult('x'), n)).toThrow(InvalidArgumentError);
  });

  it('non-string text', () => {
    for (const v of [undefined, null, 5, ['a'], { text: 'a' }]) {
      const s = v as unknown as string;
      expect(() => compactText(s, '§', 5)).toThrow(InvalidArgumentError);
      expect(() => compactText('x', s, 5)).toThrow(InvalidArgumentError);
      expect(() => compactResult(s, 5)).toThrow(InvalidArgumentError);
      expect(() => fencedCode(s, 5)).toThrow(InvalidArgumentError);
      expect(() => bashCall(s, 5)).toThrow(InvalidArgumentError);
      expect(() => genericCall(s, {}, 5)).toThrow(InvalidArgumentError);
      expect(() => compactContent(s, 'p')).toThrow(InvalidArgumentError);
      expect(() => compactContent('c', s)).toThrow(InvalidArgumentError);
      expect(() => compactBody(s)).toThrow(InvalidArgumentError);
      expect(() => joinCompacts('a', s)).toThrow(InvalidArgumentError);
    }
    expect(() => genericCall('x', [] as never, 5)).toThrow(InvalidArgumentError);
    expect(() => genericCall('x', null as never, 5)).toThrow(InvalidArgumentError);
  });

  it('malformed messages', () => {
    expect(() => compactUser({ role: 'user', content: 'hi' } as never, 5)).toThrow(InvalidArgumentError);
    expect(() => compactUser({ role: 'user', content: [{ type: 'text', text: 5 }] } as never, 5)).toThrow(InvalidArgumentError);
    expect(() => compactChat('hi' as never)).toThrow(InvalidArgumentError);
    expect(() => compactMsg(null as never)).toThrow(InvalidArgumentError);
  });

  it('fencedCode: a budget too small for the empty fence is a BudgetError (the reference raises)', () => {
    expect(() => fencedCode('x = 1', 0)).toThrow(BudgetError);
    expect(() => fencedCode('a\n`````\nb\n```\nc', 6)).toThrow(BudgetError);
  });

  it('compactBody: a document without the conversation marker', () => {
    expect(() => compactBody('no markers here')).toThrow(DocumentFormatError);
    expect(() => compactBody('## Conversation\n\nx')).toThrow(/## Conversation/);
  });
});

// ---------------------------------------------------------------------------------------------
// Continuation documents

describe('continuation documents', () => {
  it('legend explains every sigil and contains no section marker', () => {
    for (const sigil of ['§', '»', '▶', '!', 'python', '>', '¶', '…', '***']) expect(LEGEND).toContain(sigil);
    for (const marker of [CONVERSATION_MARKER, NOTES_MARKER, TRANSCRIPT_MARKER, '```', "▶ Skill(skill='"]) expect(LEGEND).not.toContain(marker);
  });

  it('skills are listed once each, in first-seen order', () => {
    expect(skillNames("▶ Skill(skill='b') x ▶ Skill(skill='a', args='1') ▶ Skill(skill='b') ▶ Skill(skill='')")).toEqual(['b', 'a']);
  });

  it('reads a document the Python reference wrote (conformance/dsl.json, compact_content)', () => {
    const ref =
      "This session is being continued from an earlier conversation. `§ … §` encloses user text; `» … »` encloses assistant text; fenced `python` is persistent-kernel execution; `!` marks Bash; `▶` marks another tool call; `>` marks its result; `¶` replaces a newline; `***` separates user-led turns; and ` … ` marks removed middle content. The final five messages are preserved untruncated. This representation is for orientation only: never copy code or commands from it; reopen the original transcript or source file first.\n\n## Conversation\n\nx ▶ Skill(skill='a') and ▶ Skill(skill='b') ▶ Skill(skill='a')\n\n## Auto-generated continuation notes\n\nA useful note.\n\nIf further detail is needed, read the complete transcript at: /tmp/session.jsonl\n\nSkill contents were compacted out above. Before relying on any skill guidance, re-invoke it: Skill(a), Skill(b).";
    expect(compactBody(ref)).toBe("x ▶ Skill(skill='a') and ▶ Skill(skill='b') ▶ Skill(skill='a')");
    // our document differs only in the legend
    const ours = compactContent("x ▶ Skill(skill='a') and ▶ Skill(skill='b') ▶ Skill(skill='a')", '/tmp/session.jsonl', 'A useful note.');
    expect(ours.slice(LEGEND.length)).toBe(ref.slice(ref.indexOf(CONVERSATION_MARKER)));
  });

  it('repeated compaction: an earlier body joined with a new chat', () => {
    const first = compactContent('§ a §', '/t1');
    const second = compactContent(joinCompacts(compactBody(first), '§ b §'), '/t2');
    expect(compactBody(second)).toBe('§ a §\n\n***\n\n§ b §');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

/** Strings rich in the characters the renderers care about, plus arbitrary code points. */
const tricky = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      '\n',
      '\r',
      '\r\n',
      ' ',
      '\t',
      '\u0085',
      '\u2028',
      '\u001c',
      '\u3000',
      '\ufeff',
      '`',
      '```',
      '````\n',
      '𝍁',
      '…',
      '¶',
      '<warn>',
      '</warn>',
      '<note>',
      '</note>',
      "'",
      '"',
      '\\',
      '\\n',
      'é',
      '日本',
      '😀',
      'a',
      'Z',
      '0',
      '.',
      '\ud800',
      '\udfff',
    ),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
  ),
  maxLength: 60,
});
/** Ordinary prose: ASCII words, spaces and line breaks. */
const prose = fc.array(fc.oneof(fc.stringMatching(/^[a-z]{1,9}$/), fc.constantFrom(' ', '\n', ', ', '. ')), { maxLength: 80 }).map((a) => a.join(''));
const budget = fc.integer({ min: 0, max: 80 });

/** SPEC §3 read literally: the fence for a code (test-side, independent of src/dsl.ts). */
function specFence(code: string): string {
  let best = 0;
  for (const line of code.split('\n')) {
    const m = /^ {0,3}(`{3,})[ \t]*$/.exec(line);
    if (m) best = Math.max(best, m[1]!.length);
  }
  return '`'.repeat(Math.max(3, best + 1));
}

/** SPEC §3 fenced_code read literally (slow, for comparison). `null` where the reference raises. */
function specFencedCode(code: string, max: number): string | null {
  const body = pyStrip(code);
  const fence = specFence(body);
  const pre = `${fence}python\n`;
  const suf = `\n${fence}`;
  if (lenToks(pre + body + suf) <= max) return pre + body + suf;
  if (lenToks(pre + suf) > max) return null;
  for (let k = Math.min(lenToks(body), max); k > 0; k--) {
    const block = pre + truncToksMid(body, k) + suf;
    if (lenToks(block) <= max) return block;
  }
  return pre + suf;
}

describe('properties (fast-check)', () => {
  it('renderers never throw on arbitrary strings and budgets', () => {
    fc.assert(
      fc.property(tricky, tricky, budget, (s, t, b) => {
        expect(typeof compactText(s, '§', b)).toBe('string');
        expect(typeof compactResult(s, b)).toBe('string');
        expect(typeof bashCall(s, b)).toBe('string');
        expect(typeof genericCall(t, { [t]: s, n: 1, l: [s, null, true] }, b)).toBe('string');
        expect(typeof compactUser(mkMsg([s, t]), b)).toBe('string');
        expect(typeof compactAsst(mkMsg([s, toolPart('Bash', { command: t })], 'assistant'), b, b)).toBe('string');
        expect(typeof compactTool(toolResult(s), b)).toBe('string');
        expect(
          typeof compactChat([mkMsg(s), mkMsg(t, 'assistant'), toolResult(s)], { userToks: b, asstToks: b, callToks: b, resultToks: b }, { lastN: b % 3 }),
        ).toBe('string');
      }),
      fcParams(300),
    );
  });

  it('fencedCode: never throws at or above the empty-fence minimum, always fits the budget', () => {
    fc.assert(
      fc.property(tricky, fc.integer({ min: 0, max: 30 }), (code, extra) => {
        const fence = specFence(pyStrip(code));
        const min = lenToks(`${fence}python\n\n${fence}`);
        const out = fencedCode(code, min + extra);
        expect(lenToks(out)).toBeLessThanOrEqual(min + extra);
        expect(out.startsWith(`${fence}python\n`) && out.endsWith(`\n${fence}`)).toBe(true);
        if (min > 0) expect(() => fencedCode(code, min - 1)).toThrow(BudgetError);
      }),
      fcParams(300),
    );
  });

  it('fencedCode equals SPEC §3 read literally', () => {
    const code = fc.oneof(tricky, prose, fc.string({ unit: 'binary', maxLength: 120 }));
    fc.assert(
      fc.property(code, fc.integer({ min: 0, max: 40 }), (c, b) => {
        const want = specFencedCode(c, b);
        if (want === null) expect(() => fencedCode(c, b)).toThrow(BudgetError);
        else expect(fencedCode(c, b)).toBe(want);
      }),
      fcParams(500),
    );
  });

  it('no line inside a fenced block can close it', () => {
    fc.assert(
      fc.property(tricky, (code) => {
        const out = fencedCode(code, 100_000);
        const fence = out.slice(0, out.indexOf('python\n'));
        const inner = out.slice(fence.length + 'python\n'.length, out.length - fence.length - 1);
        expect(inner).toBe(pyStrip(code));
        for (const line of inner.split('\n')) {
          const m = /^ {0,3}(`{3,})[ \t]*$/.exec(line);
          if (m) expect(m[1]!.length).toBeLessThan(fence.length);
        }
      }),
      fcParams(300),
    );
  });

  it('on ordinary prose the budget holds (re-counted)', () => {
    fc.assert(
      fc.property(prose, fc.integer({ min: 1, max: 60 }), (s, b) => {
        expect(lenToks(compactText(s, '§', b))).toBeLessThanOrEqual(b);
        expect(lenToks(compactText(s, '»', b))).toBeLessThanOrEqual(b);
        expect(lenToks(compactResult(s, b))).toBeLessThanOrEqual(b);
        expect(lenToks(bashCall(s, b))).toBeLessThanOrEqual(b);
        expect(lenToks(genericCall('tool', { text: s }, b))).toBeLessThanOrEqual(b);
      }),
      fcParams(300),
    );
  });

  it('<warn>/<note> removal equals the reference regex (non-greedy, DOTALL, same tag)', () => {
    const piece = fc.constantFrom('<warn>', '</warn>', '<note>', '</note>', 'x', '\n', '<', '>', '/', 'warn', 'note');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 40 }).map((a) => a.join('')),
        (s) => {
          expect(dropDocState(s)).toBe(s.replace(/<(warn|note)>[\s\S]*?<\/\1>/g, ''));
        },
      ),
      fcParams(1000),
    );
  });

  it('compactBody(compactContent(chat, path, notes)) === chat when the chat holds no section marker', () => {
    const text = fc.oneof(tricky, fc.constantFrom('\n\n## Conversation\n\n', '## Conversation', '\n\nIf further detail is needed'), prose);
    fc.assert(
      fc.property(text, text, text, (chat, path, notes) => {
        fc.pre(!chat.includes(NOTES_MARKER) && !chat.includes(TRANSCRIPT_MARKER));
        expect(compactBody(compactContent(chat, path, notes))).toBe(chat);
      }),
      fcParams(300),
    );
  });

  it('joinCompacts joins exactly the non-empty parts', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant(''), tricky), { maxLength: 6 }), (parts) => {
        const nonEmpty = parts.filter((p) => p !== '');
        expect(joinCompacts(...parts)).toBe(nonEmpty.join('\n\n***\n\n'));
      }),
      fcParams(),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Performance on large input (2-core budget: generous bounds, the point is no per-step re-encoding)

describe('large input', () => {
  it('fencedCode on 1 MB of code with budget 60', () => {
    const line = 'for i in range(10): total += compute(i, "value") * 3.14159  # ``` note\n';
    const code = line.repeat(Math.ceil(1_000_000 / line.length));
    lenToks('warm up the encoder');
    const t0 = performance.now();
    const out = fencedCode(code, 60);
    const ms = performance.now() - t0;
    expect(out.startsWith('```python\nfor i in range(10)')).toBe(true);
    expect(out.endsWith('# ``` note\n```')).toBe(true);
    expect(lenToks(out)).toBeLessThanOrEqual(60);
    expect(ms).toBeLessThan(3_000);
  });

  it('fencedCode on a 1 MB single-piece line (base64) with budget 60 encodes it at most once or twice', () => {
    const code = 'QUJD'.repeat(250_000);
    const t0 = performance.now();
    const out = fencedCode(code, 60);
    const ms = performance.now() - t0;
    expect(out.startsWith('```python\nQUJD')).toBe(true);
    expect(lenToks(out)).toBeLessThanOrEqual(60);
    expect(ms).toBeLessThan(15_000);
  });

  it('compactResult on many unclosed tags stays linear', () => {
    const s = '<warn>'.repeat(100_000) + '<note>x'.repeat(100_000);
    const t0 = performance.now();
    expect(compactResult(s, 35).startsWith('> <warn><warn>')).toBe(true);
    expect(performance.now() - t0).toBeLessThan(3_000);
  });
});

describe('fencedCode regressions', () => {
  it('a one-character body that costs several tokens is cut, not dropped (property-test counterexample)', () => {
    expect(fencedCode('\u0fc1', 5)).toBe('```python\n …\n```');
  });

  it('neighbouring characters of the same kind (one code point, several tokens) agree with SPEC §3', () => {
    const chars: string[] = [];
    for (let c = 0x0f00; c <= 0x0fff; c++) chars.push(String.fromCodePoint(c));
    for (const c of [0x1000, 0x10a0, 0x1780, 0x2e80, 0xa000, 0xa4d0, 0x1f600, 0x10000]) chars.push(String.fromCodePoint(c));
    for (const ch of chars) {
      for (const body of [ch, ch + ch, `x${ch}`]) {
        for (let b = 4; b <= 10; b++) {
          const want = specFencedCode(body, b);
          if (want === null) expect(() => fencedCode(body, b)).toThrow(BudgetError);
          else expect(fencedCode(body, b), `${JSON.stringify(body)} @ ${b}`).toBe(want);
        }
      }
    }
  });
});
