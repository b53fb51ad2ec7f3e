/**
 * Fast paths of the clean renderings against plain definitions: the sampled scan for base64
 * runs (`hasRunOf`), the table-driven base64 size, the grapheme-safe cut computed from a
 * cut given as offsets into the text (against the same cut given as decoded text), and the
 * fence scans that start at the first line able to hold a fence (against a scan of every line).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutSpans } from '../src/dsl/graphemes.js';
import { closeOpenFence, joinCutParts, openFenceAt, openFenceAtEnd, type OpenFence } from '../src/dsl/fences-repair.js';
import { base64Size, hasRunOf } from '../src/dsl/media.js';
import { lenToks, truncToksMid } from '../src/tokens/index.js';
import { tokensInternals } from '../src/tokens/internals.js';
import { cpuMs, fcParams } from './support.js';

const RUN = /[A-Za-z0-9+/=_-]/;

/** The longest run of base64 characters or `=`, by a plain scan. */
function longestRun(s: string): number {
  let best = 0;
  let k = 0;
  for (const c of s) {
    k = c.length === 1 && RUN.test(c) ? k + 1 : 0;
    if (k > best) best = k;
  }
  return best;
}

const chunk = fc.oneof(fc.stringMatching(/^[A-Za-z0-9+/=]{0,80}$/), fc.constantFrom(' ', '\n', ',', '.', 'é', '中', '😀', '\\n', '=='));
const text = fc.array(chunk, { maxLength: 30 }).map((xs) => xs.join(''));

describe('base64 scans', () => {
  it('hasRunOf answers as a plain scan does', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 70 }), (s, len) => {
        expect(hasRunOf(s, len)).toBe(longestRun(s) >= len);
      }),
      fcParams(500),
    );
    expect(hasRunOf('a'.repeat(59), 60)).toBe(false);
    expect(hasRunOf(`${'a'.repeat(59)} ${'b'.repeat(60)}`, 60)).toBe(true);
    expect(hasRunOf(`x ${'b'.repeat(60)}`, 60)).toBe(true);
    expect(hasRunOf(`${'b'.repeat(30)} ${'b'.repeat(30)}`, 60)).toBe(false);
  });

  it('base64Size counts 3 bytes per 4 base64 characters', () => {
    fc.assert(
      fc.property(text, (s) => {
        const n = [...s].filter((c) => c.length === 1 && /[A-Za-z0-9+/_-]/.test(c)).length;
        expect(base64Size(s)).toBe(Math.floor((n * 3) / 4));
      }),
      fcParams(300),
    );
  });
});

describe('grapheme-safe cut spans', () => {
  const atoms = ['a', 'bc', ' ', '\n', 'Hello', ' world', '12', '中', '文字', 'é', 'e\u0301', '😀', '👩‍💻', '🇫🇷', '…', ' … ', '\ud800', '\t'];
  const t = fc.array(fc.constantFrom(...atoms), { maxLength: 300 }).map((xs) => xs.join(''));
  it('are those of the decoded reference cut (a mark without spaces), and fit with an exact count', () => {
    fc.assert(
      fc.property(t, fc.integer({ min: 1, max: 80 }), fc.constantFrom(' … ', '…', ' ✂ '), (s, k, mark) => {
        tokensInternals.clearCache();
        const fromParts = cutSpans(s, k, mark);
        if (mark === '…' && !s.includes(mark)) {
          // Read back from the decoded text, a cut's parts are ambiguous only where the text
          // around the cut holds characters of the mark (its spaces, its '…'): where it cannot,
          // both ways give the same spans.
          tokensInternals.clearCache();
          expect(fromParts).toEqual(cutSpans(s, k, mark, (j) => truncToksMid(s, j, mark)));
        }
        if (fromParts === null || (fromParts.head === 0 && fromParts.tail === s.length)) return;
        const text = s.slice(0, fromParts.head) + mark + s.slice(fromParts.tail);
        tokensInternals.clearCache();
        const n = lenToks(text);
        expect(n).toBeLessThanOrEqual(k);
        if (fromParts.tokens >= 0) expect(fromParts.tokens).toBe(n);
      }),
      fcParams(400),
    );
  });

  it('where the text holds the mark itself: the cut fits, its count is exact, and it keeps the mark whole', () => {
    // The reference cut's parts are taken as they are (its mark's spaces are not the text's),
    // however much of the text around the cut looks like the mark.
    const m = fc.array(fc.constantFrom('ab', ' … ', ' ', '…', 'x …', '\n'), { maxLength: 200 }).map((xs) => xs.join(''));
    fc.assert(
      fc.property(m, fc.integer({ min: 1, max: 60 }), (s, k) => {
        tokensInternals.clearCache();
        const spans = cutSpans(s, k);
        if (spans === null) {
          expect(lenToks(s)).toBeLessThanOrEqual(k);
          return;
        }
        expect(spans.head).toBeLessThanOrEqual(spans.tail);
        if (spans.head === 0 && spans.tail === s.length) return;
        const text = s.slice(0, spans.head) + ' … ' + s.slice(spans.tail);
        tokensInternals.clearCache();
        const n = lenToks(text);
        expect(n).toBeLessThanOrEqual(k);
        if (spans.tokens >= 0) expect(spans.tokens).toBe(n);
      }),
      fcParams(400),
    );
  });
});

/** The fence state after each line, by a plain scan of every line (the rules of fences-repair.ts). */
function plainStep(line: string, open: OpenFence | null): OpenFence | null {
  const m = /^[ \t]*([`~])\1\1+/.exec(line);
  if (m === null) return open;
  const i = m[0].length - m[0].trimStart().length;
  const ch = m[1]!.charCodeAt(0);
  const len = m[0].length - i;
  const rest = line.slice(i + len);
  let col = 0;
  for (const c of line.slice(0, i)) col = c === ' ' ? col + 1 : col + 4 - (col % 4);
  if (col >= 4) return open; // indented code, or a line of the open fence's code
  if (open === null) {
    if (ch === 96 && rest.includes('`')) return null;
    return { ch, len, line: line.slice(i), indent: col, prefix: '' }; // (the generated lines start no container)
  }
  if (ch === open.ch && len >= open.len && /^[ \t]*$/.test(rest)) return null;
  return open;
}

function plainAtEnd(s: string, from: number, to: number): OpenFence | null {
  let st: OpenFence | null = null;
  for (const raw of s.slice(from, to).split('\n')) st = plainStep(raw.endsWith('\r') ? raw.slice(0, -1) : raw, st);
  return st;
}

function plainAt(s: string, pos: number): OpenFence | null {
  let st: OpenFence | null = null;
  let i = 0;
  for (const raw of s.split('\n')) {
    if (i >= pos) break;
    st = plainStep(raw.endsWith('\r') ? raw.slice(0, -1) : raw, st);
    i += raw.length + 1;
  }
  return st;
}

describe('fence scans', () => {
  const line = fc.constantFrom('```', '```py', '````', '~~~', '  ```', '    ```', '``` x`', 'text', '', 'a ``` b', '~~~~ ', '```\r', 'x');
  const doc = fc.array(line, { maxLength: 20 }).map((xs) => xs.join('\n'));
  it('find the fence open at an offset as a scan of every line does', () => {
    fc.assert(
      fc.property(doc, fc.nat(), fc.nat(), (s, a, b) => {
        const to = s.length === 0 ? 0 : b % (s.length + 1);
        expect(openFenceAtEnd(s, 0, to)).toEqual(plainAtEnd(s, 0, to));
        expect(openFenceAtEnd(s)).toEqual(plainAtEnd(s, 0, s.length));
        const pos = s.length === 0 ? 0 : a % (s.length + 1);
        expect(openFenceAt(s, pos)).toEqual(plainAt(s, pos));
      }),
      fcParams(500),
    );
  });
});

describe('fence scans in containers', () => {
  it('stay linear on text dense with indented openers, items and quotes', () => {
    // Every line a fence line under some container: the scan reads each line once, with no
    // reading back; twice the text costs about twice the time.
    const unit = '- item\n  ```\n  code\n1. step\n   ~~~\n> ```\n>   ```\n  - a\n    ```\n```\n';
    const time = (n: number): number => {
      const s = unit.repeat(n);
      const t0 = performance.now();
      for (let k = 0; k < 3; k++) {
        openFenceAtEnd(s);
        openFenceAt(s, s.length >> 1);
        joinCutParts(s, s.length >> 2, (3 * s.length) >> 2);
      }
      return performance.now() - t0;
    };
    time(2_000); // warm up
    const small = time(10_000);
    const big = time(40_000);
    expect(big).toBeLessThan(small * 4 * 2.5 + 20);
    expect(big).toBeLessThan(2_000);
  });

  // Shapes a review found quadratic: a line of markers asked, at each marker, whether the rest
  // of the line is a thematic break; each blank line walked every item of a deep nesting; each
  // item looked again over a long run of indentation.
  const shapes: [string, (n: number) => string][] = [
    ['one line of list markers, then a fence', (n) => `${'* '.repeat(n)}\`\`\``],
    ['markers and tabs, then a tilde fence', (n) => `${'-\t'.repeat(n)}~~~`],
    ['deep items, then blank lines and a fence', (n) => `intro\n${'1. '.repeat(n)}x\n${'\n'.repeat(4 * n)}\`\`\`\ncode`],
    ['deep items, then lines of deep indentation', (n) => `${'- '.repeat(n)}x\n${`${' '.repeat(2 * n)}y\n`.repeat(3)}\`\`\`\ncode`],
  ];
  for (const [name, make] of shapes) {
    it(`stay linear on ${name}`, () => {
      const time = (n: number): number => {
        const s = make(n);
        const t0 = cpuMs();
        openFenceAtEnd(s);
        closeOpenFence(s);
        joinCutParts(s, s.length >> 2, (3 * s.length) >> 2);
        return cpuMs() - t0;
      };
      time(2_000); // warm up
      const small = time(10_000);
      const big = time(40_000);
      // (quadratic, the big text took 16 times as long: tens of seconds)
      expect(big).toBeLessThan(small * 4 * 2.5 + 40);
      expect(big).toBeLessThan(2_000);
    });
  }
});
