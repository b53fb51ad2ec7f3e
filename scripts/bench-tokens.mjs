// Benchmark of the tokenizer, src/tokens/ (run after `npx tsc -p tsconfig.json`): tokens/second for
// prose, Chinese-like text, code, a 200 KB run of one letter and a 5 MB base64 line (and the
// prose / CJK ratio of MB/s), and Chinese-like text counted once per text (cjkFresh1MB, each run
// a new text: no cached pieces); the time of
// truncToksMid(5 MB base64, 35); and the first lenToks call (which decodes the rank table).
// Times are the best of several runs (wall clock); tokens/s is from lenToks.
// With `--against DIR` (the root of another built checkout) the lenToks rates are also timed
// there, in the same process with runs alternating, and printed as a ratio (this / that).
// Usage: node scripts/bench-tokens.mjs [--json] [--against DIR]
import { join, resolve } from 'node:path';

const t0 = performance.now();
const tok = await import('../dist/tokens/index.js');
const importMs = performance.now() - t0;
const { encToks, lenToks, truncToksMid, fitsToks } = tok;

const asJson = process.argv.includes('--json');
const againstAt = process.argv.indexOf('--against');
const against = againstAt >= 0 ? resolve(process.argv[againstAt + 1]) : null;
const other = against ? await import(join(against, 'dist', 'tokens', 'index.js')) : null;
const results = { importMs: round(importMs) };
function round(x) {
  return Math.round(x * 10) / 10;
}

// Deterministic pseudo-random source (xorshift32) so runs are comparable.
let seed = 0x9e3779b9;
function rnd() {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
}

// First call: includes the lazy decode of the rank table.
{
  const t = performance.now();
  lenToks('Hello, world!');
  results.firstLenToksMs = round(performance.now() - t);
}

const words = (
  'the of and to in is was for on that with as by at from his her it an were are which this be ' +
  'compaction notebook dialog token budget summary history message assistant reply tool result kept ' +
  'because however although meanwhile particularly transformation encoding unicode café naïve 東京 Ünïcödé'
).split(' ');
function prose(bytes) {
  const out = [];
  let len = 0;
  while (len < bytes) {
    const n = 5 + Math.floor(rnd() * 20);
    const ws = [];
    for (let i = 0; i < n; i++) ws.push(words[Math.floor(rnd() * words.length)]);
    let s = ws.join(' ');
    s = s[0].toUpperCase() + s.slice(1) + (rnd() < 0.2 ? '?\n\n' : '. ');
    out.push(s);
    len += s.length;
  }
  return out.join('');
}
function code(bytes) {
  const lines = [];
  let len = 0;
  let i = 0;
  while (len < bytes) {
    const v = `value_${i % 97}`;
    const l = [
      `def f_${i}(${v}, n=${i % 1000}):`,
      `    if ${v} is None or len(${v}) > 0x${((i * 2654435761) >>> 0).toString(16)}:`,
      `        return {"k${i}": [${v}, n * ${i % 13} + 1], 'path': "/usr/lib/x${i}.so"}`,
      `    for j in range(n): ${v} += j ** 2  # accumulate ${i}`,
      '',
    ].join('\n');
    lines.push(l);
    len += l.length;
    i++;
  }
  return lines.join('\n');
}
const HAN =
  '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书';
/** Chinese-like text of about `bytes` UTF-8 bytes: runs of 5-34 common Han characters ended by a full-width comma or stop. */
function cjk(bytes) {
  const out = [];
  let len = 0;
  while (len < bytes) {
    const k = 5 + Math.floor(rnd() * 30);
    let s = '';
    for (let i = 0; i < k; i++) s += HAN[Math.floor(rnd() * HAN.length)];
    s += rnd() < 0.5 ? '，' : '。';
    out.push(s);
    len += 3 * s.length;
  }
  return out.join('');
}
function base64Line(bytes) {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const parts = [];
  for (let i = 0; i < bytes; i++) parts.push(A[Math.floor(rnd() * 64)]);
  return parts.join('');
}

// Best of `reps` runs (wall clock): the least disturbed by other processes on the machine.
function best(reps, f) {
  let min = Infinity;
  let out;
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    out = f();
    min = Math.min(min, performance.now() - t);
  }
  return [min, out];
}

function rate(name, s, reps) {
  encToks(s); // warm once (JIT, piece cache) as a long-running caller would be
  const [encMs, n] = best(reps, () => encToks(s).length);
  let lenMs;
  let m;
  let thatMs;
  if (other) {
    other.encToks(s);
    // Alternate the two checkouts run by run, so a change of load on the machine affects both.
    lenMs = Infinity;
    thatMs = Infinity;
    for (let r = 0; r < reps + 2; r++) {
      const [a, out] = best(1, () => lenToks(s));
      const [b, theirs] = best(1, () => other.lenToks(s));
      if (theirs !== out) throw new Error(`${name}: lenToks ${out} here, ${theirs} in ${against}`);
      lenMs = Math.min(lenMs, a);
      thatMs = Math.min(thatMs, b);
      m = out;
    }
  } else [lenMs, m] = best(reps, () => lenToks(s));
  if (m !== n) throw new Error(`${name}: lenToks ${m} != encToks length ${n}`);
  const bytes = new TextEncoder().encode(s).length;
  results[name] = {
    chars: s.length,
    bytes,
    tokens: n,
    encMs: round(encMs),
    lenToksMs: round(lenMs),
    tokensPerSec: Math.round(n / (lenMs / 1000)),
    mbPerSec: round(bytes / 1e6 / (lenMs / 1000)),
  };
  if (other) Object.assign(results[name], { againstLenToksMs: round(thatMs), againstMbPerSec: round(bytes / 1e6 / (thatMs / 1000)) });
}

// Text seen once: each run counts a new text (of the same kind), so the piece cache and the
// cache of merged segments hold none of its pieces beforehand; the best run is kept.
function rateFresh(name, make, reps) {
  const texts = Array.from({ length: reps + 1 }, () => make());
  lenToks(texts[reps]); // warm the code once, on a text not timed
  if (other) other.lenToks(texts[reps]);
  let lenMs = Infinity;
  let thatMs = Infinity;
  let bytes = 0;
  let tokens = 0;
  for (let r = 0; r < reps; r++) {
    const [a, out] = best(1, () => lenToks(texts[r]));
    if (a < lenMs) {
      lenMs = a;
      bytes = new TextEncoder().encode(texts[r]).length;
      tokens = out;
    }
    if (other) {
      const [b, theirs] = best(1, () => other.lenToks(texts[r]));
      if (theirs !== out) throw new Error(`${name}: lenToks ${out} here, ${theirs} in ${against}`);
      thatMs = Math.min(thatMs, b);
    }
  }
  results[name] = {
    chars: texts[0].length,
    bytes,
    tokens,
    encMs: NaN,
    lenToksMs: round(lenMs),
    tokensPerSec: Math.round(tokens / (lenMs / 1000)),
    mbPerSec: round(bytes / 1e6 / (lenMs / 1000)),
  };
  if (other) Object.assign(results[name], { againstLenToksMs: round(thatMs), againstMbPerSec: round(bytes / 1e6 / (thatMs / 1000)) });
}

const P = prose(1_000_000);
const C = code(1_000_000);
const A = 'a'.repeat(200_000);
const B = base64Line(5_000_000);
const H = cjk(1_000_000);
rate('prose1MB', P, 5);
rate('cjk1MB', H, 5);
rate('code1MB', C, 5);
rate('a200KB', A, 5);
rate('base64_5MB', B, 3);
rateFresh('cjkFresh1MB', () => cjk(1_000_000), 5);

{
  const [cutMs, cut] = best(3, () => truncToksMid(B, 35));
  results.truncToksMid_base64_5MB_35 = { ms: round(cutMs), outTokens: lenToks(cut) };
  const [cutAMs, cutA] = best(3, () => truncToksMid(A, 35));
  results.truncToksMid_a200KB_35 = { ms: round(cutAMs), outTokens: lenToks(cutA) };
  const [fitMs, fits] = best(3, () => fitsToks(B, 35));
  results.fitsToks_base64_5MB_35 = { ms: round(fitMs), fits };
}

if (asJson) {
  console.log(JSON.stringify(results, null, 2));
} else {
  console.log(`import of dist/tokens/index.js: ${results.importMs} ms; first lenToks (rank load): ${results.firstLenToksMs} ms`);
  for (const k of ['prose1MB', 'cjk1MB', 'code1MB', 'a200KB', 'base64_5MB', 'cjkFresh1MB']) {
    const r = results[k];
    console.log(
      `${k.padEnd(12)} ${String(r.chars).padStart(8)} chars ${String(r.tokens).padStart(8)} tokens  encToks ${String(r.encMs).padStart(7)} ms  ` +
        `lenToks ${String(r.lenToksMs).padStart(7)} ms  ${(r.tokensPerSec / 1e6).toFixed(2)} M tokens/s  ${r.mbPerSec} MB/s` +
        (other ? `; ${against}: ${r.againstLenToksMs} ms (this / that ${(r.lenToksMs / r.againstLenToksMs).toFixed(2)})` : ''),
    );
  }
  const cjkRatio = results.prose1MB.mbPerSec / results.cjk1MB.mbPerSec;
  let ratioLine = `prose / CJK throughput (MB/s): ${cjkRatio.toFixed(2)}x (target <= 1.5x: ${cjkRatio <= 1.5 ? 'met' : 'not met'})`;
  if (other) ratioLine += `; ${against}: ${(results.prose1MB.againstMbPerSec / results.cjk1MB.againstMbPerSec).toFixed(2)}x`;
  console.log(ratioLine);
  let freshLine = `prose / CJK seen once (cjkFresh1MB, MB/s): ${(results.prose1MB.mbPerSec / results.cjkFresh1MB.mbPerSec).toFixed(2)}x`;
  if (other) freshLine += `; ${against}: ${(results.prose1MB.againstMbPerSec / results.cjkFresh1MB.againstMbPerSec).toFixed(2)}x`;
  console.log(freshLine);
  console.log(
    `200 KB of one letter counted in ${results.a200KB.lenToksMs} ms, the 5 MB base64 line in ${results.base64_5MB.lenToksMs} ms (target: well under a second: ${Math.max(results.a200KB.lenToksMs, results.base64_5MB.lenToksMs) < 1000 ? 'met' : 'not met'})`,
  );
  console.log(`truncToksMid(base64 5 MB, 35): ${results.truncToksMid_base64_5MB_35.ms} ms (-> ${results.truncToksMid_base64_5MB_35.outTokens} tokens)`);
  console.log(`truncToksMid(a x 200 KB, 35): ${results.truncToksMid_a200KB_35.ms} ms (-> ${results.truncToksMid_a200KB_35.outTokens} tokens)`);
  console.log(`fitsToks(base64 5 MB, 35): ${results.fitsToks_base64_5MB_35.ms} ms (${results.fitsToks_base64_5MB_35.fits})`);
}
