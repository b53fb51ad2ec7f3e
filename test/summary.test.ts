import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, readText, shared } from './support.js';
import { clone, deepFreeze, dropEmptyLists } from './strategies-helpers.js';
import {
  applyCompactionSummary,
  buildCompactionSummaryPrompt,
  checkCompaction,
  estimateMessageTokens,
  estimateMessagesTokens,
  o200kCounter,
  planSummarySplit,
  splitMessagesForCompaction,
  summarizeCompaction,
} from '../src/strategies/summary.js';
import type { SummaryWireMessage as SummaryMessage } from '../src/strategies/wire.js';
import { InvalidArgumentError } from '../src/errors.js';

interface CorpusRecord {
  id: string;
  fn: string;
  args: unknown[];
  expected: unknown;
}

const FNS: Record<string, (...a: never[]) => unknown> = {
  estimateMessageTokens,
  estimateMessagesTokens,
  checkCompaction,
  splitMessagesForCompaction,
  buildCompactionSummaryPrompt,
  applyCompactionSummary,
};

describe.skipIf(!HAVE_SHARED)('summary-corpus.json', () => {
  const corpus = HAVE_SHARED ? (JSON.parse(readText(shared('conformance', 'summary-corpus.json'))) as { records: CorpusRecord[] }) : { records: [] };

  it('has the 65 records SPEC §9 announces', () => {
    expect(corpus.records.length).toBe(65);
  });

  it.each(corpus.records.map((r) => [r.id, r] as const))('%s', (_id, rec) => {
    const fn = FNS[rec.fn];
    expect(fn, `unknown fn ${rec.fn}`).toBeDefined();
    const args = deepFreeze(clone(rec.args));
    const got = (fn as (...a: unknown[]) => unknown)(...args);
    expect(dropEmptyLists(clone(got))).toEqual(dropEmptyLists(rec.expected));
  });
});

const m = (type: string, text: string, extra: Partial<SummaryMessage> = {}): SummaryMessage => ({ type, text, ...extra });
const x = (n: number): string => 'x'.repeat(n);

describe('summary: estimates', () => {
  it('counts UTF-16 units of text plus payload', () => {
    // 2 astral characters = 4 UTF-16 units -> ceil(4/4*1.25) = 2
    expect(estimateMessageTokens(m('user', '😀😀'))).toBe(2);
    // 8 units of text + 8 of payload = 16 -> 5
    expect(estimateMessageTokens(m('activity', x(8), { payload: x(8) }))).toBe(5);
  });
  it('o200kCounter counts text + payload with o200k_base', () => {
    // "hello world" is 2 o200k tokens (checked with tiktoken o200k_base)
    expect(o200kCounter(m('user', 'hello world'))).toBe(2);
    expect(o200kCounter(m('user', 'hello', { payload: ' world' }))).toBe(2);
  });
  it('rejects malformed messages with a typed error', () => {
    expect(() => estimateMessageTokens({ type: 'user' } as unknown as SummaryMessage)).toThrow(InvalidArgumentError);
    expect(() => estimateMessagesTokens('nope' as unknown as SummaryMessage[])).toThrow(InvalidArgumentError);
  });
});

describe('summary: options and units', () => {
  const convo = deepFreeze(Array.from({ length: 8 }, (_, i) => m(i % 2 ? 'bot' : 'user', x(100))));

  it('validates options', () => {
    expect(() => checkCompaction(convo, { maxTokens: -1 })).toThrow(InvalidArgumentError);
    expect(() => checkCompaction(convo, { maxTokens: 10, keepRecentCount: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => checkCompaction(convo, { maxTokens: 10, countTokens: () => -1 })).toThrow(InvalidArgumentError);
  });

  it('uses a pluggable counter', () => {
    const r = checkCompaction(convo, { maxTokens: 10, countTokens: () => 1 });
    expect(r.estimatedTokens).toBe(8);
    expect(r.shouldCompact).toBe(false); // 8 < floor(10 * 0.9) = 9
    expect(checkCompaction(convo, { maxTokens: 8, countTokens: () => 1 }).shouldCompact).toBe(true); // 8 >= 7
  });

  it('never separates a tool call from its result (adjacent activity messages)', () => {
    // 8 messages, keep 2 by default: the cut would fall between the two activity halves.
    const msgs = deepFreeze([
      m('user', x(100)),
      m('bot', x(100)),
      m('user', x(100)),
      m('bot', x(100)),
      m('user', x(100)),
      m('activity', '', { payload: 'call read_file' }),
      m('activity', '', { payload: 'result' }),
      m('bot', x(100)),
    ]);
    const s = splitMessagesForCompaction(msgs, { maxTokens: 1 });
    expect(s.messagesToSummarize).toEqual(msgs.slice(0, 5));
    expect(s.messagesToKeep).toEqual(msgs.slice(5));
  });

  it('a unit spanning the whole head means no compaction', () => {
    const msgs = deepFreeze([m('activity', 'a'), m('activity', 'b'), m('activity', 'c'), m('activity', 'd')]);
    expect(checkCompaction(msgs, { maxTokens: 0 }).shouldCompact).toBe(false);
  });

  it('generic planner works on any item type', () => {
    const items = ['sys', 'a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const plan = planSummarySplit(items, { maxTokens: 8, countTokens: () => 1, isPinned: (s) => s === 'sys' });
    expect(plan).toEqual({ shouldCompact: true, summarize: [1, 2, 3, 4, 5], keep: [0, 6, 7], estimatedTokens: 8 });
    const forced = planSummarySplit(items, { maxTokens: 1000, countTokens: () => 1, force: true, keepRecentCount: 4 });
    expect(forced.summarize).toEqual([0, 1, 2, 3]);
  });
});

describe('summary: summarizeCompaction', () => {
  const convo = deepFreeze([m('instructions', 'be brief'), ...Array.from({ length: 8 }, (_, i) => m(i % 2 ? 'bot' : 'user', x(400), { id: `m${i}` }))]);
  const opts = { maxTokens: 1000 };

  it('applies a good summary', async () => {
    let prompt = '';
    const r = await summarizeCompaction(
      convo,
      (p) => {
        prompt = p;
        return '  short summary \n';
      },
      opts,
    );
    expect(r.compacted).toBe(true);
    expect(prompt).toContain('[USER]: ' + x(400));
    expect(r.messages[0]).toBe(convo[0]);
    expect(r.messages[1]).toEqual({
      type: 'context',
      text: '[Conversation summary - 5 earlier message(s) condensed]\n\nshort summary',
      meta: { compacted: true, droppedCount: 5, summarizedIds: ['m0', 'm1', 'm2', 'm3', 'm4'] },
    });
    expect(r.messages.slice(2)).toEqual(convo.slice(6));
    expect(r.tokensBefore).toBe(3 + 8 * 125);
  });

  it('refuses failing, empty and non-shrinking summaries', async () => {
    const failed = await summarizeCompaction(
      convo,
      () => {
        throw new Error('down');
      },
      opts,
    );
    expect(failed).toMatchObject({ compacted: false, reason: 'summarizer-failed' });
    expect(failed.messages).toBe(convo);
    const rejected = await summarizeCompaction(convo, () => Promise.reject(new Error('down')), opts);
    expect(rejected.reason).toBe('summarizer-failed');
    const empty = await summarizeCompaction(convo, () => ' \n ', opts);
    expect(empty).toMatchObject({ compacted: false, reason: 'empty-summary' });
    const huge = await summarizeCompaction(convo, () => x(5000), opts);
    expect(huge).toMatchObject({ compacted: false, reason: 'not-shrinking' });
    expect(huge.messages).toBe(convo);
  });

  it('does nothing below the threshold unless forced', async () => {
    const small = { maxTokens: 100000 };
    const r = await summarizeCompaction(convo, () => 's', small);
    expect(r).toMatchObject({ compacted: false, reason: 'not-needed' });
    const f = await summarizeCompaction(convo, () => 's', { ...small, force: true });
    expect(f.compacted).toBe(true);
  });
});
