// Build src/tokens/o200k-data.ts, the packed o200k_base rank table, from the published ranks
// (the o200k_base data of the js-tiktoken package, a devDependency of this script only).
//
// Layout (all integers little-endian u32, then the sections):
//   n | |H| + |S| | |Z| | Z | R
// The n tokens are sorted by their bytes and front-coded: H holds, for each, the length of the
// prefix it shares with the previous token and the length of the rest (a byte each), S the
// rests' bytes; Z is H then S compressed with raw DEFLATE, one stream (made by zopfli, whose
// search finds a smaller stream than zlib's level 9: 337 KB against 365 KB). R holds the
// sorted tokens' ranks three at a time, each three (r0, r1, r2) as the number r0 + n r1 + n^2 r2
// (below n^3 < 2^53) in 53 bits, most significant bit first (a last group short of three has
// zeros), then 4 zero bytes. The whole is written as text in
// base 91: its bits, most significant first and zero-padded, in groups of 13 (a value below
// 8192 = 2^13 <= 91^2), each group v as two characters ALPHABET[v % 91], ALPHABET[floor(v / 91)].
// The alphabet is printable ASCII and the space without the three quotes and the backslash, so
// the text is a plain string literal; it is checked to hold no `</script`, `<script` or `<!--`
// (so a bundle stays safe inlined in an HTML page). `${` may occur: the text is a plain string,
// never a template, so biome.json turns that lint off for the generated file.
// The file also records two SHA-256 digests checked by test/tokens-packed.test.ts: of the
// published rank text, and of the table in rank order (for each rank: length byte, bytes).
// Usage: node scripts/pack-ranks.mjs [--check]   (--check: fail if the file is out of date)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { inflateRawSync } from 'node:zlib';
import { sha256 } from '@noble/hashes/sha2.js';
import o200k from 'js-tiktoken/ranks/o200k_base';

const { deflate: zopfliDeflate } = createRequire(import.meta.url)('@gfx/zopfli');

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'src', 'tokens', 'o200k-data.ts');
export const ALPHABET = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i))
  .filter((c) => !`'"\\\``.includes(c))
  .join('');
if (ALPHABET.length !== 91) throw new Error('alphabet');

const hex = (b) => Buffer.from(b).toString('hex');

/** The published tokens by rank, from js-tiktoken's `NAME OFFSET TOK TOK …` lines. */
function published() {
  const toks = [];
  for (const line of o200k.bpe_ranks.split('\n')) {
    const parts = line.split(' ');
    if (parts.length < 2) continue;
    let r = Number(parts[1]);
    for (const b64 of parts.slice(2)) toks[r++] = Buffer.from(b64, 'base64');
  }
  for (let r = 0; r < toks.length; r++) if (!toks[r]) throw new Error(`rank ${r} missing`);
  return toks;
}

async function pack(toks) {
  const n = toks.length;
  const order = toks.map((_, r) => r).sort((a, b) => Buffer.compare(toks[a], toks[b]));
  const H = Buffer.alloc(2 * n);
  const parts = [];
  let prev = Buffer.alloc(0);
  order.forEach((r, i) => {
    const t = toks[r];
    let p = 0;
    while (p < prev.length && p < t.length && prev[p] === t[p]) p++;
    if (p > 255 || t.length - p > 255) throw new Error('token too long for the layout');
    H[2 * i] = p;
    H[2 * i + 1] = t.length - p;
    parts.push(t.subarray(p));
    prev = t;
  });
  const S = Buffer.concat(parts);
  // Ranks three at a time, as one number below n^3 < 2^53 (r0 + n r1 + n^2 r2), in 53 bits;
  // 4 zero bytes after them, so that a reader may always take 8 bytes at a group's start.
  if (n ** 3 > 2 ** 53) throw new Error('too many tokens for three ranks in 53 bits');
  const groups = Math.ceil(n / 3);
  const R = Buffer.alloc(Math.ceil((groups * 53) / 8) + 4);
  let bit = 0;
  const put = (v, k) => {
    for (let b = k - 1; b >= 0; b--, bit++) if (Math.floor(v / 2 ** b) % 2 === 1) R[bit >> 3] |= 0x80 >> (bit & 7);
  };
  for (let g = 0; g < groups; g++) {
    const [a = 0, b = 0, c = 0] = order.slice(3 * g, 3 * g + 3);
    const v = a + n * b + n * n * c;
    put(Math.floor(v / 2 ** 21), 32);
    put(v % 2 ** 21, 21);
  }
  const HS = Buffer.concat([H, S]);
  const Z = Buffer.from(
    await new Promise((done, fail) => zopfliDeflate(HS, { numiterations: 15, blocksplitting: true }, (err, out) => (err ? fail(err) : done(out)))),
  );
  if (Buffer.compare(inflateRawSync(Z), HS) !== 0) throw new Error('the compressed table does not inflate back');
  const head = Buffer.alloc(12);
  [n, H.length + S.length, Z.length].forEach((v, i) => head.writeUInt32LE(v, 4 * i));
  return Buffer.concat([head, Z, R]);
}

function base91(buf) {
  const chars = [];
  let acc = 0;
  let bits = 0;
  const group = (v) => chars.push(ALPHABET[v % 91], ALPHABET[Math.floor(v / 91)]);
  for (const byte of buf) {
    acc = (acc << 8) | byte;
    bits += 8;
    if (bits >= 13) {
      bits -= 13;
      group((acc >>> bits) & 0x1fff);
      acc &= (1 << bits) - 1;
    }
  }
  if (bits > 0) group((acc << (13 - bits)) & 0x1fff);
  const text = chars.join('');
  // Inlined in an HTML page, a script ends at `</script` and changes mode at `<!--` or `<script`.
  if (/<\/script|<!--|<script/i.test(text)) throw new Error('the packed text holds a sequence that an inline script cannot');
  return text;
}

/** The table in rank order, as the checksum reads it: for each rank, a length byte then the bytes. */
export function canonical(toks) {
  return Buffer.concat(toks.flatMap((t) => [Buffer.from([t.length]), t]));
}

const toks = published();
const packed = await pack(toks);
const text = [
  '// Generated by scripts/pack-ranks.mjs from the published o200k_base ranks; do not edit.',
  '// The packed layout is described in that script; ranks.ts decodes it.',
  '',
  '/** SHA-256 of the published rank text this table was built from. */',
  `export const SOURCE_SHA256 = '${hex(sha256(Buffer.from(o200k.bpe_ranks, 'utf8')))}';`,
  '/** SHA-256 of the table in rank order (for each rank: its byte length, then its bytes). */',
  `export const TABLE_SHA256 = '${hex(sha256(canonical(toks)))}';`,
  '/** Bytes of the packed table before base 91 (the text pads its last group with zero bits). */',
  `export const PACKED_BYTES = ${packed.length};`,
  '/** Special tokens (decoding only): id and text. */',
  'export const SPECIAL: ReadonlyArray<readonly [number, string]> = [',
  ...Object.entries(o200k.special_tokens).map(([k, v]) => `  [${v}, '${k}'],`),
  '];',
  '/** The packed table as base-91 text (13 bits in two characters). */',
  'export const PACKED =',
  `  '${base91(packed)}';`,
  '',
].join('\n');
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== text) {
    console.error(`${target} is out of date: run node scripts/pack-ranks.mjs`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}: ${toks.length} tokens, ${packed.length} packed bytes, ${text.length} characters`);
}
