/**
 * Some fixtures are copies of reference files in ../shared/conformance/, kept here so their
 * suites also run without ../shared/. A copy must stay byte-identical to its source: when the
 * reference changes, this fails until the copy is refreshed (`cp ../shared/conformance/X
 * test/fixtures/X`). Without ../shared/ it is skipped, or fails under DLG_REQUIRE_SHARED=1
 * (see support.ts).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, HAVE_SHARED, shared } from './support.js';

/** Fixture (under test/fixtures/) -> its source (under ../shared/). */
const COPIES: Record<string, string> = {
  'dsl.json': 'conformance/dsl.json',
  'reply.json': 'conformance/reply.json',
  'tokens.json': 'conformance/tokens.json',
};

describe.skipIf(!HAVE_SHARED)('fixtures copied from ../shared/', () => {
  it.each(Object.entries(COPIES))('test/fixtures/%s is byte-identical to ../shared/%s', (copy, source) => {
    const mine = readFileSync(join(FIXTURES, copy));
    const theirs = readFileSync(shared(source));
    // Compared as bytes; on a mismatch the first differing offset says where to look.
    if (!mine.equals(theirs)) {
      let at = 0;
      while (at < mine.length && at < theirs.length && mine[at] === theirs[at]) at++;
      expect.fail(`test/fixtures/${copy} differs from ../shared/${source} at byte ${at} (${mine.length} vs ${theirs.length} bytes)`);
    }
  });

  it('every fixture named like a conformance file is in the list above', () => {
    const conformance = new Set(readdirSync(shared('conformance')));
    const named = readdirSync(FIXTURES).filter((f) => conformance.has(f));
    expect(named.sort()).toEqual(
      Object.keys(COPIES)
        .filter((f) => existsSync(join(FIXTURES, f)))
        .sort(),
    );
    // ...and every listed copy exists.
    for (const copy of Object.keys(COPIES)) expect(existsSync(join(FIXTURES, copy)), copy).toBe(true);
  });
});
