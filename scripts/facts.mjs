// Facts a continuing model needs, extracted from a dialog, and the share of them an output keeps;
// used by scripts/retention.mjs (which documents the seven classes and their rules) and
// scripts/savings.mjs. `fmt2hist` is the reply parser of the built library under test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const CLASSES = ['paths', 'names', 'tools', 'errors', 'numbers', 'urls', 'requests'];
const EXT =
  'py|ipynb|js|mjs|ts|tsx|json|md|txt|csv|tsv|yaml|yml|toml|cfg|ini|sh|html|css|c|h|cpp|rs|go|java|rb|sql|xml|log|pdf|png|jpg|jpeg|gif|svg|parquet|pkl|nc|zip|gz';
const PATH_RE = new RegExp(`(?<!<)(?:~|\\.{1,2})?(?:/[\\w.@+-]+)+/?|\\b[\\w.-]+(?:/[\\w.@+-]+)+|\\b[\\w-]+\\.(?:${EXT})\\b`, 'g');
const DEF_RE = /^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/gm;
const ERR_RE = /\b[A-Z]\w*(?:Error|Exception)\b/g;
const NUM_RE = /\d+(?:[.,]\d+)*/g;
const URL_RE = /https?:\/\/[^\s'"<>`)\]\\]+/g;

const add = (set, re, text, group = 0) => {
  for (const m of text.matchAll(re)) {
    const v = m[group] ?? m[2];
    if (v) set.add(v);
  }
};

/** The facts of a dialog, by class. */
export function facts(d, fmt2hist) {
  const f = Object.fromEntries(CLASSES.map((c) => [c, new Set()]));
  const code = (src) => add(f.names, DEF_RE, src, 1);
  const results = (text) => {
    add(f.errors, ERR_RE, text);
    for (const m of text.matchAll(NUM_RE)) if (m[0].replace(/\D/g, '').length >= 2) f.numbers.add(m[0]);
  };
  const anywhere = (text) => {
    add(f.paths, PATH_RE, text);
    add(f.urls, URL_RE, text);
  };
  for (const m of d.messages) {
    if (m.skipped || (m.type === 'raw' && m.meta && Object.hasOwn(m.meta, 'rec_kind'))) continue;
    anywhere(m.content);
    if (m.type === 'code') {
      code(m.content);
      const view = m.aiOutput;
      anywhere(view);
      results(view);
    }
    if (m.type === 'prompt') {
      const words = m.content.trim().split(/\s+/).slice(0, 6).join(' ');
      if (words) f.requests.add(words);
      anywhere(m.reply);
      for (const msg of fmt2hist(m.reply)) {
        for (const part of msg.content) {
          if (part.type === 'tool_use') {
            f.tools.add(part.name);
            for (const v of Object.values(part.arguments ?? {})) {
              if (typeof v === 'string' && v.length > 0 && v.length <= 40 && !v.includes('\n')) f.tools.add(v);
              if (typeof v === 'string' && (part.name === 'py' || part.name.endsWith('execute'))) code(v);
            }
          } else if (part.type === 'tool_result') results(part.text);
        }
      }
    }
  }
  for (const u of f.urls) f.paths.delete(u.replace(/^https?:/, ''));
  return f;
}

const squash = (s) => s.replace(/ ¶ /g, ' ').replace(/\s+/g, ' ');

/** Share retained per class (undefined for a class without facts). */
export function retained(f, out) {
  const flat = squash(out);
  const r = {};
  for (const c of CLASSES) {
    if (f[c].size === 0) continue;
    let n = 0;
    for (const x of f[c]) if (c === 'requests' ? flat.includes(squash(x)) : out.includes(x)) n++;
    r[c] = n / f[c].size;
  }
  return r;
}

/** The dialog's plain text: what the model reads, cell by cell. */
export function plainText(d) {
  const parts = [];
  for (const m of d.messages) {
    if (m.skipped) continue;
    parts.push(m.content);
    if (m.type === 'prompt' && m.reply) parts.push(m.reply);
    if (m.type === 'code' && m.output.length) parts.push(m.aiOutput);
  }
  return parts.join('\n\n');
}

/** The dialogs of a conformance folder (`manifest.json`); a message naming `who` and exit 1 when unreadable. */
export function readManifest(dir, who) {
  try {
    return JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  } catch (err) {
    console.error(`${who}: cannot read ${join(dir, 'manifest.json')}: ${err.message}`);
    process.exit(1);
  }
}
