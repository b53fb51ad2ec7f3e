import { describe, expect, it } from 'vitest';
import { HAVE_SHARED, readText, shared } from './support.js';
import { clone, deepFreeze } from './strategies-helpers.js';
import {
  EffectReceipt,
  EvidenceArgumentError,
  EvidenceError,
  ReceiptDigestError,
  ReceiptError,
  TokenCounterError,
  compactCompletedInteractions,
  evidenceRecord,
  type EffectReceiptDict,
  type EvidenceCompactionResult,
  type EvidenceTokenCounter as MessagesTokenCounter,
} from '../src/strategies/evidence.js';
import type { EvidenceWireMessage as ChatMessage } from '../src/strategies/wire.js';
import { DlgError } from '../src/errors.js';
import { LosslessNumber, cpLen, parseJson } from '../src/python/index.js';

interface ExpectedResult {
  messages: ChatMessage[];
  compacted_interactions: number;
  tokens_before: number;
  tokens_after: number;
  saved_tokens: number;
  receipt_ids: string[];
}
interface EvidenceCase {
  name: string;
  messages: ChatMessage[];
  receipts: EffectReceiptDict[];
  counter: string;
  kwargs: { keep_recent?: number; result_preview_chars?: number };
  expected?: ExpectedResult;
  error?: { type: string; message: string };
}
interface EvidenceFile {
  counters: Record<string, string>;
  receipts: Array<{ receipt: EffectReceiptDict }>;
  cases: EvidenceCase[];
}

const chars = (ms: readonly ChatMessage[]): number => ms.reduce((n, m) => n + cpLen(m.content), 0);
/** The counters named in the file, implemented as its `counters` descriptions say. */
const COUNTERS: Record<string, MessagesTokenCounter> = {
  chars, // "sum of len(content) in code points"
  const10: () => 10, // "always 10"
  big_minus: (ms) => 1000000 - chars(ms), // "1000000 minus chars"
  true: (() => true) as unknown as MessagesTokenCounter, // "returns boolean true (invalid)"
};

const ERRORS: Record<string, new (...a: never[]) => Error> = {
  'keep_recent must be a non-negative integer': EvidenceArgumentError,
  'result_preview_chars must be a positive integer': EvidenceArgumentError,
  'count_tokens must return a non-negative integer': TokenCounterError,
};

function snake(r: EvidenceCompactionResult): ExpectedResult {
  return {
    messages: r.messages,
    compacted_interactions: r.compactedInteractions,
    tokens_before: r.tokensBefore,
    tokens_after: r.tokensAfter,
    saved_tokens: r.savedTokens,
    receipt_ids: r.receiptIds,
  };
}

function run(c: EvidenceCase, messages: readonly ChatMessage[] = c.messages): EvidenceCompactionResult {
  const receipts = c.receipts.map((d) => EffectReceipt.fromDict(d));
  return compactCompletedInteractions(messages, receipts, COUNTERS[c.counter]!, {
    keepRecent: c.kwargs.keep_recent,
    resultPreviewChars: c.kwargs.result_preview_chars,
  });
}

describe.skipIf(!HAVE_SHARED)('evidence-vectors.json', () => {
  const file: EvidenceFile = HAVE_SHARED
    ? (JSON.parse(readText(shared('conformance', 'evidence-vectors.json'))) as EvidenceFile)
    : { counters: {}, receipts: [], cases: [] };

  it('every counter the file names is implemented', () => {
    expect(Object.keys(file.counters).sort()).toEqual(Object.keys(COUNTERS).sort());
  });

  const allReceipts = [...file.receipts.map((r) => r.receipt), ...file.cases.flatMap((c) => c.receipts)];
  it.each(allReceipts.map((r, i) => [i, r.tool_call_id, r] as const))('receipt %i (%s): fromDict verifies, toDict round-trips', (_i, _id, d) => {
    const frozen = deepFreeze(clone(d));
    const r = EffectReceipt.fromDict(frozen);
    expect(r.receiptId).toBe(d.receipt_id);
    expect(r.toDict()).toEqual(d);
    expect(EffectReceipt.fromDict(r.toDict()).receiptId).toBe(d.receipt_id);
  });

  it.each(file.cases.map((c) => [c.name, c] as const))('%s', (_name, c0) => {
    const c = deepFreeze(clone(c0));
    if (c.error) {
      const cls = ERRORS[c.error.message];
      expect(cls, `unmapped error ${c.error.message}`).toBeDefined();
      expect(() => run(c)).toThrow(cls!);
      expect(() => run(c)).toThrow(c.error.message);
      return;
    }
    const got = run(c);
    expect(snake(got)).toEqual(c.expected);
    expect(c).toEqual(c0); // inputs untouched (and frozen)
    // Idempotent: running on its own output changes nothing.
    const again = run(c, deepFreeze(clone(got.messages)));
    expect(again.messages).toEqual(got.messages);
    expect(again.compactedInteractions).toBe(0);
  });
});

const RESULT = 'status: 0\n' + 'line\n'.repeat(100);
const receipt = (over: Partial<ConstructorParameters<typeof EffectReceipt>[0]> = {}): EffectReceipt =>
  new EffectReceipt({ toolCallId: 'c1', tool: 'run_command', arguments: { argv: ['make'] }, exitState: 'ok', result: RESULT, changedArtifacts: [], ...over });
const action = (content: string): ChatMessage => ({ role: 'assistant', content });
const observation = (text: string): ChatMessage => ({ role: 'user', content: 'Tool result:\n' + text });

describe('evidence: EffectReceipt', () => {
  it('hashes the canonical payload (Python json.dumps(sort_keys, ensure_ascii, compact))', () => {
    // python3: hashlib.sha256(json.dumps({"tool_call_id":"c1","tool":"t","arguments":{"b":1.0,"a":"é"},
    //   "exit_state":"ok","result":"r","changed_artifacts":["y","x"]} with changed_artifacts sorted,
    //   ensure_ascii=True, sort_keys=True, separators=(",",":")).encode()).hexdigest()
    const args = parseJson('{"b": 1.0, "a": "\\u00e9"}') as Record<string, unknown>;
    const r = new EffectReceipt({ toolCallId: 'c1', tool: 't', arguments: args, exitState: 'ok', result: 'r', changedArtifacts: ['y', 'x'] });
    expect(r.changedArtifacts).toEqual(['x', 'y']);
    expect(r.receiptId).toBe(PY_DIGEST);
    expect(Object.isFrozen(r)).toBe(true);
    expect(Object.isFrozen(r.arguments)).toBe(true);
  });

  it('rejects invalid fields and wrong digests with typed errors', () => {
    expect(() => receipt({ toolCallId: '' })).toThrow(ReceiptError);
    expect(() => receipt({ tool: '' })).toThrow(ReceiptError);
    expect(() => receipt({ exitState: 'done' as never })).toThrow(ReceiptError);
    expect(() => receipt({ result: 5 as never })).toThrow(ReceiptError);
    expect(() => receipt({ changedArtifacts: [''] })).toThrow(ReceiptError);
    expect(() => receipt({ arguments: [] as never })).toThrow(ReceiptError);
    expect(() => receipt({ arguments: { f: () => 1 } })).toThrow(ReceiptError);
    const d = receipt().toDict();
    expect(() => EffectReceipt.fromDict({ ...d, receipt_id: '0'.repeat(64) })).toThrow(ReceiptDigestError);
    expect(() => EffectReceipt.fromDict({ ...d, result: RESULT + 'x' })).toThrow(ReceiptDigestError);
    expect(() => EffectReceipt.fromDict({ ...d, extra: 1 })).toThrow(ReceiptError);
    const { tool: _t, ...missing } = d;
    expect(() => EffectReceipt.fromDict(missing)).toThrow(ReceiptError);
    expect(() => EffectReceipt.fromDict('x')).toThrow(ReceiptError);
    expect(new ReceiptDigestError('x')).toBeInstanceOf(EvidenceError);
    expect(new TokenCounterError('x')).toBeInstanceOf(DlgError);
  });

  it('toDict is a fresh mutable copy', () => {
    const r = receipt();
    const d = r.toDict();
    (d.arguments.argv as string[]).push('x');
    expect(r.arguments).toEqual({ argv: ['make'] });
  });
});

describe('evidence: compactCompletedInteractions', () => {
  const msgs = deepFreeze([action('{"tool": "run_command", "argv": ["make"]}'), observation(RESULT)]);

  it('matches arguments with Python equality (1 == 1.0 == true, key order free, exact big ints)', () => {
    const r1 = receipt({ arguments: { n: 1, big: new LosslessNumber('12345678901234567890'), argv: ['make'] } });
    const m1 = deepFreeze([action('{"tool": "run_command", "argv": ["make"], "big": 12345678901234567890, "n": 1.0}'), observation(RESULT)]);
    expect(compactCompletedInteractions(m1, [r1], chars, { keepRecent: 0 }).compactedInteractions).toBe(1);
    const m2 = deepFreeze([action('{"tool": "run_command", "argv": ["make"], "big": 12345678901234567891, "n": true}'), observation(RESULT)]);
    expect(compactCompletedInteractions(m2, [r1], chars, { keepRecent: 0 }).compactedInteractions).toBe(0);
    const m3 = deepFreeze([action('{"tool": "run_command", "argv": ["make"], "big": 12345678901234567890, "n": true}'), observation(RESULT)]);
    expect(compactCompletedInteractions(m3, [r1], chars, { keepRecent: 0 }).compactedInteractions).toBe(1);
  });

  it('accepts receipt dicts and verifies them', () => {
    const d = receipt().toDict();
    expect(compactCompletedInteractions(msgs, [d], chars, { keepRecent: 0 }).receiptIds).toEqual([d.receipt_id]);
    expect(() => compactCompletedInteractions(msgs, [{ ...d, receipt_id: 'f'.repeat(64) }], chars)).toThrow(ReceiptDigestError);
  });

  it('previews count code points', () => {
    const r = receipt({ result: '😀'.repeat(10) });
    const rec = evidenceRecord(r, 3);
    expect(rec).toContain('"result_preview":"\\ud83d\\ude00\\ud83d\\ude00\\ud83d\\ude00\\u2026 [7 chars omitted]"');
  });

  it('a second identical interaction does not take over a receipt on a re-run', () => {
    const r = receipt();
    const two = deepFreeze([...msgs, ...msgs]);
    const first = compactCompletedInteractions(two, [r], chars, { keepRecent: 0 });
    expect(first.compactedInteractions).toBe(1);
    const second = compactCompletedInteractions(first.messages, [r], chars, { keepRecent: 0 });
    expect(second.messages).toEqual(first.messages);
    expect(second.compactedInteractions).toBe(0);
  });

  it('rejects malformed messages and options with typed errors', () => {
    expect(() => compactCompletedInteractions([{ role: 'user', content: ['x'] } as never], [], chars)).toThrow(EvidenceArgumentError);
    expect(() => compactCompletedInteractions(msgs, [], chars, { keepRecent: 1.5 })).toThrow(EvidenceArgumentError);
    expect(() => compactCompletedInteractions(msgs, [], (() => -1) as MessagesTokenCounter)).toThrow(TokenCounterError);
    expect(() => compactCompletedInteractions(msgs, [], (() => 1.5) as MessagesTokenCounter)).toThrow(TokenCounterError);
  });
});

// python3 -c 'import hashlib,json; print(hashlib.sha256(json.dumps({"tool_call_id":"c1","tool":"t",
//   "arguments":{"b":1.0,"a":"\u00e9"},"exit_state":"ok","result":"r","changed_artifacts":["x","y"]},
//   ensure_ascii=True,sort_keys=True,separators=(",",":")).encode()).hexdigest())'
const PY_DIGEST = 'aca0941a391463f814e4f2bbf417376350cdc71dbbce7067a7a3c4ccb51dd644';
