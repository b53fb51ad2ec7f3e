/**
 * io.ts: file reading and atomic writing.
 */
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dialog } from '../src/dialog/dialog.js';
import { NotebookError } from '../src/errors.js';
import { readIpynb, readIpynbSync, writeIpynb, writeIpynbSync } from '../src/notebook/files.js';
import { FIXTURES } from './support.js';

const tmp = mkdtempSync(join(tmpdir(), 'dlg-io-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const fixture = (name: string): string => join(FIXTURES, 'notebooks', name);

describe('io', () => {
  it('reads a file without touching it and writes the expected bytes', async () => {
    const src = join(tmp, 'in.ipynb');
    writeFileSync(src, readFileSync(fixture('prompts.ipynb')));
    const before = statSync(src);
    const d = await readIpynb(src);
    expect(d.name).toBe(src);
    expect(statSync(src).mtimeMs).toBe(before.mtimeMs);
    expect(readFileSync(src).equals(readFileSync(fixture('prompts.ipynb')))).toBe(true);
    const dst = join(tmp, 'out.ipynb');
    const text = await writeIpynb(d, dst);
    expect(text).toBe(readFileSync(fixture('prompts.expected.ipynb'), 'utf8'));
    expect(readFileSync(dst).equals(readFileSync(fixture('prompts.expected.ipynb')))).toBe(true);
  });

  it('sync forms behave the same', () => {
    const d = readIpynbSync(fixture('outputs.ipynb'));
    const dst = join(tmp, 'sync.ipynb');
    expect(writeIpynbSync(d, dst)).toBe(readFileSync(fixture('outputs.expected.ipynb'), 'utf8'));
    expect(readFileSync(dst, 'utf8')).toBe(readFileSync(fixture('outputs.expected.ipynb'), 'utf8'));
  });

  it('without a path returns the text and writes nothing', async () => {
    const dir = mkdtempSync(join(tmp, 'nopath-'));
    const d = new Dialog();
    expect(await writeIpynb(d)).toBe('{\n "cells": [],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 5\n}\n');
    expect(writeIpynbSync(d)).toBe(await writeIpynb(d));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('replaces an existing file atomically, keeping its mode and leaving no temp files', async () => {
    const dir = mkdtempSync(join(tmp, 'atomic-'));
    const dst = join(dir, 'n.ipynb');
    writeFileSync(dst, 'old contents');
    chmodSync(dst, 0o640);
    const d = readIpynbSync(fixture('strings.ipynb'));
    await writeIpynb(d, dst);
    expect(readFileSync(dst, 'utf8')).toBe(readFileSync(fixture('strings.expected.ipynb'), 'utf8'));
    expect(statSync(dst).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['n.ipynb']);
  });

  it('errors name the file', async () => {
    const missing = join(tmp, 'missing.ipynb');
    await expect(readIpynb(missing)).rejects.toThrow(NotebookError);
    await expect(readIpynb(missing)).rejects.toThrow(`${missing}: cannot read: ENOENT`);
    expect(() => readIpynbSync(missing)).toThrow(`${missing}: cannot read: ENOENT`);
    expect(() => readIpynbSync(tmp)).toThrow(NotebookError);
    const bad = join(tmp, 'bad.ipynb');
    writeFileSync(bad, Buffer.from([0x7b, 0xff]));
    await expect(readIpynb(bad)).rejects.toThrow(`${bad}: not valid UTF-8`);
    const noDir = join(tmp, 'no', 'such', 'dir.ipynb');
    await expect(writeIpynb(new Dialog(), noDir)).rejects.toThrow(`${noDir}: cannot write`);
    expect(() => writeIpynbSync(new Dialog(), noDir)).toThrow(NotebookError);
  });

  it('does not write a dialog that fails validation', async () => {
    const dst = join(tmp, 'invalid.ipynb');
    const d = new Dialog([], { name: 'mine' });
    d.mkMessage('x', { id: 'bad id' });
    await expect(writeIpynb(d, dst)).rejects.toThrow('mine: cell #0: id: invalid cell id');
    expect(() => statSync(dst)).toThrow();
  });
});
