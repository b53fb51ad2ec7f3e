/**
 * Conformance: every dialog in ../shared/conformance/dialogs round-trips through
 * readsIpynbBytes + dumpsIpynb to exactly NNN.roundtrip.ipynb where present (the reference
 * normalises some files), else to the input bytes; and what is written passes the official
 * nbformat 4.5 schema.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dumpsIpynb, readsIpynbBytes } from '../src/notebook/index.js';
import { schemaErrors } from './nbschema.js';
import { HAVE_SHARED, shared } from './support.js';

interface ManifestEntry {
  name: string;
  roundtrip_identical: boolean;
  generated_ids: boolean;
  messages: number;
  prompts: number;
}

const dir = (...p: string[]): string => shared('conformance', 'dialogs', ...p);
const manifest: ManifestEntry[] = HAVE_SHARED ? (JSON.parse(readFileSync(dir('manifest.json'), 'utf8')) as ManifestEntry[]) : [];

describe.skipIf(!HAVE_SHARED)('ipynb round trip (conformance dialogs)', () => {
  it('covers all 44 manifest dialogs', () => {
    expect(manifest.length).toBe(44);
  });

  it.each(manifest.map((e) => [e.name, e] as const))('%s', (name, entry) => {
    const input = readFileSync(dir(`${name}.ipynb`));
    const rt = dir(`${name}.roundtrip.ipynb`);
    const hasRt = existsSync(rt);
    expect(hasRt).toBe(!entry.roundtrip_identical);
    const expected = hasRt ? readFileSync(rt, 'utf8') : input.toString('utf8');
    const dialog = readsIpynbBytes(input, `${name}.ipynb`);
    expect(dialog.length).toBe(entry.messages);
    expect(dialog.messages.filter((m) => m.type === 'prompt').length).toBe(entry.prompts);
    expect(dialog.messages.some((m) => m.idGenerated)).toBe(entry.generated_ids);
    const out = dumpsIpynb(dialog);
    expect(out === expected).toBe(true); // exact; a diff below only if it fails
    if (out !== expected) expect(out).toEqual(expected);
    expect(Buffer.from(out, 'utf8').equals(hasRt ? readFileSync(rt) : input)).toBe(true);
    expect(schemaErrors(out)).toBe('');
    // The native parse path and parseJson agree.
    expect(dumpsIpynb(readsIpynbBytes(input, `${name}.ipynb`, { parser: 'lossless' })) === out).toBe(true);
  });
});
