import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HAVE_SHARED, readText, shared } from './support.js';
import { clone, deepFreeze } from './strategies-helpers.js';
import {
  AUTO_THRESHOLD_TOKENS,
  MICRO_KEEP_RECENT,
  MICRO_MIN_CHARS,
  PRESERVE_RESULT_TOOLS,
  TRANSCRIPT_DIR,
  TranscriptError,
  UNKNOWN_TOOL,
  autoCompact,
  estimateTranscriptTokens,
  microCompact,
  pickToolResultsToClear,
  placeholderFor,
  transcriptJsonl,
  transcriptName,
  type TranscriptWriter,
} from '../src/strategies/micro.js';
import type { AnthropicWireMessage as AnthropicMessage } from '../src/strategies/wire.js';
import { autoCompactNode, nodeTranscriptWriter } from '../src/strategies/transcript-file.js';
import { parseJson } from '../src/python/index.js';
import { InvalidArgumentError } from '../src/errors.js';

interface MicroCase {
  name: string;
  messages: AnthropicMessage[];
  options: { keep?: number; preserve?: string[] };
  expected: AnthropicMessage[];
}
interface MicroFile {
  constants: {
    keep_recent: number;
    min_chars_exclusive: number;
    preserve_tools: string[];
    placeholder: string;
    unknown_name: string;
    auto_threshold_tokens: number;
    transcript_dir: string;
    transcript_name: string;
  };
  cases: MicroCase[];
}

describe.skipIf(!HAVE_SHARED)('micro-vectors.json', () => {
  const file = HAVE_SHARED
    ? (JSON.parse(readText(shared('conformance', 'micro-vectors.json'))) as MicroFile)
    : ({ constants: {}, cases: [] } as unknown as MicroFile);

  it('constants match', () => {
    const c = file.constants;
    expect(MICRO_KEEP_RECENT).toBe(c.keep_recent);
    expect(MICRO_MIN_CHARS).toBe(c.min_chars_exclusive);
    expect([...PRESERVE_RESULT_TOOLS]).toEqual(c.preserve_tools);
    expect(placeholderFor('NAME')).toBe(c.placeholder.replace('{tool_name}', 'NAME'));
    expect(UNKNOWN_TOOL).toBe(c.unknown_name);
    expect(AUTO_THRESHOLD_TOKENS).toBe(c.auto_threshold_tokens);
    expect(TRANSCRIPT_DIR).toBe(c.transcript_dir);
    expect(transcriptName(1700000000)).toBe(c.transcript_name.replace('{unix_seconds}', '1700000000'));
  });

  it.each(file.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const input = deepFreeze(clone(c.messages));
    const opts: { keepRecent?: number; preserveTools?: string[] } = {};
    if (c.options.keep !== undefined) opts.keepRecent = c.options.keep;
    if (c.options.preserve !== undefined) opts.preserveTools = c.options.preserve;
    const got = microCompact(input, opts);
    expect(got).toEqual(c.expected);
    expect(got).not.toBe(input);
    expect(input).toEqual(c.messages); // frozen and unchanged
  });
});

const big = (ch: string, n = 150): string => ch.repeat(n);
const call = (id: string, name: string): AnthropicMessage => ({ role: 'assistant', content: [{ type: 'tool_use', id, name, input: {} }] });
const res = (id: string, content: unknown): AnthropicMessage => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] });

describe('micro: pickToolResultsToClear', () => {
  const e = (toolName: string | undefined, resultLength: number | null) => ({ toolName, resultLength });
  it('keeps the newest, short, non-text and preserved results', () => {
    const entries = [
      e('bash', 500),
      e('read_file', 500),
      e('bash', 100),
      e('bash', 101),
      e(undefined, 101),
      e('x', null),
      e('bash', 999),
      e('bash', 999),
      e('bash', 999),
    ];
    expect(pickToolResultsToClear(entries)).toEqual([0, 3, 4]);
    expect(pickToolResultsToClear(entries, { keepRecent: 0, preserveTools: [] })).toEqual([0, 1, 3, 4, 6, 7, 8]);
    expect(pickToolResultsToClear(entries, { preserveTools: ['unknown'] })).toEqual([0, 1, 3]);
    expect(pickToolResultsToClear(entries, { minChars: 0, keepRecent: 8 })).toEqual([0]);
    expect(pickToolResultsToClear(entries.slice(0, 3))).toEqual([]);
  });
  it('rejects bad options', () => {
    expect(() => pickToolResultsToClear([], { keepRecent: -1 })).toThrow(InvalidArgumentError);
    expect(() => pickToolResultsToClear([], { minChars: 1.5 })).toThrow(InvalidArgumentError);
  });
});

describe('micro: microCompact', () => {
  it('resolves names from SDK-like objects as well as plain objects', () => {
    class ToolUse {
      readonly type = 'tool_use';
      constructor(
        readonly id: string,
        readonly name: string,
      ) {}
    }
    const msgs = deepFreeze([
      { role: 'assistant', content: [new ToolUse('a', 'grep')] },
      res('a', big('a')),
      call('b', 'bash'),
      res('b', big('b')),
      call('c', 'bash'),
      res('c', big('c')),
      call('d', 'bash'),
      res('d', big('d')),
    ]);
    const out = microCompact(msgs);
    expect((out[1]!.content as { content: string }[])[0]!.content).toBe('[Previous: used grep]');
    expect(out.slice(2)).toEqual(msgs.slice(2));
    expect(out[0]).toBe(msgs[0]); // unchanged messages are shared, not copied
  });

  it('counts code points, not UTF-16 units', () => {
    const astral = '😀'.repeat(60); // 60 code points, 120 UTF-16 units
    const msgs = deepFreeze([call('a', 'bash'), res('a', astral), call('b', 'x'), res('b', 'b'), call('c', 'x'), res('c', 'c'), call('d', 'x'), res('d', 'd')]);
    expect(microCompact(msgs)).toEqual(msgs);
  });

  it('keepRecent 0 clears every eligible result', () => {
    const msgs = deepFreeze([call('a', 'bash'), res('a', big('a')), call('b', 'read_file'), res('b', big('b'))]);
    const out = microCompact(msgs, { keepRecent: 0 });
    expect(out[1]).toEqual(res('a', '[Previous: used bash]'));
    expect(out[3]).toBe(msgs[3]);
  });

  it('only looks at user messages with list content and assistant tool_use blocks', () => {
    const msgs = deepFreeze([
      { role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'fake' }] },
      { role: 'tool', content: [{ type: 'tool_result', tool_use_id: 'a', content: big('t') }] },
      res('a', big('a')),
      res('b', big('b')),
      res('c', big('c')),
      res('d', big('d')),
    ]);
    const out = microCompact(msgs);
    expect(out[1]).toBe(msgs[1]);
    expect(out[2]).toEqual(res('a', '[Previous: used unknown]'));
  });

  it('rejects malformed input with a typed error', () => {
    expect(() => microCompact('x' as unknown as AnthropicMessage[])).toThrow(InvalidArgumentError);
    expect(() => microCompact([null] as unknown as AnthropicMessage[])).toThrow(InvalidArgumentError);
    expect(() => microCompact([{ content: [] }] as unknown as AnthropicMessage[])).toThrow(InvalidArgumentError);
  });
});

// Messages with a non-ASCII string, U+2028, an astral character, a float 1.0 and a 20-digit int.
const TRANSCRIPT_JSON =
  '[{"role": "user", "content": "h\\u00e9llo \\u2028 \\ud83d\\ude00 \\"q\\""},' +
  ' {"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "bash", "input": {"command": "ls -1", "n": 1.0, "big": 12345678901234567890}}]},' +
  ' {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "a\\tb\\n"}]}]';
// Python: ''.join(json.dumps(m) + '\n' for m in msgs)
const EXPECTED_JSONL =
  '{"role": "user", "content": "h\\u00e9llo \\u2028 \\ud83d\\ude00 \\"q\\""}\n' +
  '{"role": "assistant", "content": [{"type": "tool_use", "id": "tu_1", "name": "bash", "input": {"command": "ls -1", "n": 1.0, "big": 12345678901234567890}}]}\n' +
  '{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "a\\tb\\n"}]}\n';

function memoryWriter(): { files: Map<string, string>; writer: TranscriptWriter } {
  const files = new Map<string, string>();
  return {
    files,
    writer: (dir, name, data) => {
      const p = `${dir}/${name}`;
      if (files.has(p)) return null;
      files.set(p, data);
      return p;
    },
  };
}

describe('micro: autoCompact', () => {
  const msgs = deepFreeze(parseJson(TRANSCRIPT_JSON) as AnthropicMessage[]);
  const now = () => 1_700_000_000_999;

  it('writes the Python json.dumps JSONL and estimates len(str(messages)) // 4', () => {
    expect(transcriptJsonl(msgs)).toBe(EXPECTED_JSONL);
    expect(estimateTranscriptTokens(msgs)).toBe(77); // Python: len(str(msgs)) == 309
  });

  it('saves the transcript, then returns one summary message naming it', async () => {
    const mem = memoryWriter();
    let prompt = '';
    const r = await autoCompact(
      msgs,
      (p) => {
        prompt = p;
        return 'S';
      },
      { writeTranscript: mem.writer, threshold: 10, now },
    );
    expect(r.compacted).toBe(true);
    expect(r.transcriptPath).toBe('.transcripts/transcript_1700000000.jsonl');
    expect(mem.files.get('.transcripts/transcript_1700000000.jsonl')).toBe(EXPECTED_JSONL);
    expect(r.messages).toEqual([{ role: 'user', content: '[Conversation compressed. Transcript: .transcripts/transcript_1700000000.jsonl]\n\nS' }]);
    expect(
      prompt.startsWith(
        'Summarize this conversation for continuity. Include: 1) What was accomplished, 2) Current state, 3) Key decisions made. Be concise but preserve critical details.\n\n[{"role": "user"',
      ),
    ).toBe(true);
    expect(r.tokensBefore).toBe(77);
  });

  it('never overwrites: picks the next free name', async () => {
    const mem = memoryWriter();
    mem.files.set('d/transcript_1700000000.jsonl', 'old');
    mem.files.set('d/transcript_1700000000_1.jsonl', 'old');
    const r = await autoCompact(msgs, () => 'S', { writeTranscript: mem.writer, threshold: 10, now, transcriptDir: 'd' });
    expect(r.transcriptPath).toBe('d/transcript_1700000000_2.jsonl');
    expect(mem.files.get('d/transcript_1700000000.jsonl')).toBe('old');
  });

  it('keeps history on failing, empty or non-shrinking summaries', async () => {
    const opts = { writeTranscript: memoryWriter().writer, threshold: 10, now };
    const failed = await autoCompact(
      msgs,
      () => {
        throw new Error('no');
      },
      opts,
    );
    expect(failed).toMatchObject({ compacted: false, reason: 'summarizer-failed' });
    expect(failed.messages).toBe(msgs);
    expect(failed.transcriptPath).toBeDefined();
    expect((await autoCompact(msgs, async () => '  \n', opts)).reason).toBe('empty-summary');
    expect((await autoCompact(msgs, async () => 'x'.repeat(1000), opts)).reason).toBe('not-shrinking');
  });

  it('does nothing at or below the threshold unless forced', async () => {
    const mem = memoryWriter();
    const r = await autoCompact(msgs, () => 'S', { writeTranscript: mem.writer, threshold: 77, now });
    expect(r).toMatchObject({ compacted: false, reason: 'below-threshold', tokensBefore: 77 });
    expect(mem.files.size).toBe(0);
    const f = await autoCompact(msgs, () => 'S', { writeTranscript: mem.writer, threshold: 77, now, force: true, focus: 'the ls output' });
    expect(f.compacted).toBe(true);
  });

  it('a failing writer is a TranscriptError and nothing is compacted', async () => {
    const writer: TranscriptWriter = () => {
      throw new Error('disk full');
    };
    await expect(autoCompact(msgs, () => 'S', { writeTranscript: writer, threshold: 0, now })).rejects.toThrow(TranscriptError);
  });
});

describe('micro: nodeTranscriptWriter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dlg-transcripts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates exclusively, atomically, and leaves no temporary files', async () => {
    const sub = join(dir, 'a', '.transcripts');
    expect(await nodeTranscriptWriter(sub, 't.jsonl', 'é\n')).toBe(join(sub, 't.jsonl'));
    expect(readFileSync(join(sub, 't.jsonl'), 'utf8')).toBe('é\n');
    expect(await nodeTranscriptWriter(sub, 't.jsonl', 'other')).toBeNull();
    expect(readFileSync(join(sub, 't.jsonl'), 'utf8')).toBe('é\n');
    expect(readdirSync(sub)).toEqual(['t.jsonl']);
  });

  it('autoCompactNode saves next to an existing transcript of the same second', async () => {
    const sub = join(dir, 'b');
    const msgs = deepFreeze(parseJson(TRANSCRIPT_JSON) as AnthropicMessage[]);
    const now = () => 1_700_000_000_000;
    const first = await autoCompactNode(msgs, () => 'S', { transcriptDir: sub, threshold: 0, now });
    const second = await autoCompactNode(msgs, () => 'S', { transcriptDir: sub, threshold: 0, now });
    expect(first.transcriptPath).toBe(join(sub, 'transcript_1700000000.jsonl'));
    expect(second.transcriptPath).toBe(join(sub, 'transcript_1700000000_1.jsonl'));
    expect(readFileSync(second.transcriptPath!, 'utf8')).toBe(EXPECTED_JSONL);
    expect(readdirSync(sub).sort()).toEqual(['transcript_1700000000.jsonl', 'transcript_1700000000_1.jsonl']);
  });
});
