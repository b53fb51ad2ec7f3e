/**
 * Writing only what changed (`writeIfChanged`) and the one description of file-system errors
 * (`describeFileError`, `FileAccessError`) in src/notebook/files.ts.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, NotebookError } from '../src/errors.js';
import { FileAccessError, describeFileError, readIpynb, writeIfChanged } from '../src/notebook/files.js';

const tmp = mkdtempSync(join(tmpdir(), 'dlg-writes-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A directory of its own for one test. */
const dir = (name: string): string => mkdtempSync(join(tmp, `${name}-`));

/** Set a file's modification time to the epoch, so a rewrite shows. */
const age = (p: string): void => utimesSync(p, 0, 0);

describe('writeIfChanged', () => {
  it('writes a missing file (string as UTF-8), then leaves identical bytes alone', async () => {
    const p = join(dir('new'), 'out.txt');
    expect(await writeIfChanged(p, 'héllo\n')).toBe('written');
    expect(readFileSync(p)).toEqual(Buffer.from('héllo\n', 'utf8'));
    age(p);
    expect(await writeIfChanged(p, new TextEncoder().encode('héllo\n'))).toBe('unchanged');
    expect(statSync(p).mtimeMs).toBe(0);
  });

  it('replaces different bytes atomically, keeping the mode and leaving no temporary file', async () => {
    const d = dir('replace');
    const p = join(d, 'out.bin');
    writeFileSync(p, 'old');
    chmodSync(p, 0o640);
    expect(await writeIfChanged(p, Uint8Array.of(1, 2, 3))).toBe('written');
    expect([...readFileSync(p)]).toEqual([1, 2, 3]);
    expect(statSync(p).mode & 0o777).toBe(0o640);
    expect(readdirSync(d)).toEqual(['out.bin']);
  });

  it('a view into a larger buffer writes only its own bytes', async () => {
    const p = join(dir('view'), 'out.bin');
    const big = Uint8Array.of(9, 1, 2, 9);
    expect(await writeIfChanged(p, big.subarray(1, 3))).toBe('written');
    expect([...readFileSync(p)]).toEqual([1, 2]);
  });

  it('dryRun writes nothing and says whether a write would happen', async () => {
    const d = dir('dry');
    const p = join(d, 'out.txt');
    expect(await writeIfChanged(p, 'x', { dryRun: true })).toBe('would write');
    expect(readdirSync(d)).toEqual([]);
    writeFileSync(p, 'x');
    expect(await writeIfChanged(p, 'x', { dryRun: true })).toBe('unchanged');
    expect(await writeIfChanged(p, 'y', { dryRun: true })).toBe('would write');
    expect(readFileSync(p, 'utf8')).toBe('x');
  });

  it('`current` stands for what is on disk (not read again)', async () => {
    const p = join(dir('current'), 'out.txt');
    writeFileSync(p, 'on disk');
    age(p);
    expect(await writeIfChanged(p, 'claimed', { current: Buffer.from('claimed') })).toBe('unchanged');
    expect(readFileSync(p, 'utf8')).toBe('on disk');
    expect(await writeIfChanged(p, 'on disk', { current: null })).toBe('written');
    expect(statSync(p).mtimeMs).not.toBe(0);
  });

  it('failures are FileAccessErrors naming the file, the operation and the reason', async () => {
    const d = dir('fail');
    const missingDir = join(d, 'no', 'such', 'out.txt');
    const e1 = await writeIfChanged(missingDir, 'x').catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(FileAccessError);
    expect(e1).toBeInstanceOf(NotebookError);
    const f1 = e1 as FileAccessError;
    expect(f1.message).toBe(`${missingDir}: cannot write: ENOENT: no such file or directory`);
    expect([f1.file, f1.operation, f1.code, f1.reason]).toEqual([missingDir, 'write', 'ENOENT', 'no such file or directory']);
    expect((f1.cause as NodeJS.ErrnoException).code).toBe('ENOENT');

    // A directory in the output's place: the write fails, naming it.
    const asDir = join(d, 'taken');
    mkdirSync(asDir);
    const f2 = (await writeIfChanged(asDir, 'x').catch((e: unknown) => e)) as FileAccessError;
    expect(f2).toBeInstanceOf(FileAccessError);
    expect([f2.operation, f2.code, f2.reason]).toEqual(['write', 'EISDIR', 'is a directory']);
    expect(f2.message).toBe(`${asDir}: cannot write: EISDIR: is a directory`);

    // A file on the way where a directory should be: absent for the comparison, then the write fails.
    writeFileSync(join(d, 'plain'), '');
    const f3 = (await writeIfChanged(join(d, 'plain', 'out.txt'), 'x').catch((e: unknown) => e)) as FileAccessError;
    expect([f3.operation, f3.code, f3.reason]).toEqual(['write', 'ENOTDIR', 'a component of the path is not a directory']);

    await expect(writeIfChanged('', 'x')).rejects.toThrow(InvalidArgumentError);
  });
});

describe('describeFileError', () => {
  it('a phrase for known codes, else the error message', () => {
    const err = (code: string, message = `${code}: something, open '/x'`) => Object.assign(new Error(message), { code });
    expect(describeFileError(err('ENOENT'))).toBe('no such file or directory');
    expect(describeFileError(err('EACCES'))).toBe('permission denied');
    expect(describeFileError(err('ELOOP'))).toBe('too many levels of symbolic links');
    expect(describeFileError(err('EMFILE'))).toBe('too many open files');
    // An unknown code: Node's description, without the code, syscall and (temporary) path.
    expect(describeFileError(err('EWEIRD', "EWEIRD: something odd, rename '/x/.t.tmp' -> '/x/t'"))).toBe('something odd');
    expect(describeFileError(new Error('plain'))).toBe('plain');
    expect(describeFileError('a string')).toBe('a string');
    expect(describeFileError(null)).toBe('null');
  });

  it('readIpynb reports a missing file with code and phrase, without the syscall noise', async () => {
    const missing = join(tmp, 'missing.ipynb');
    const e = (await readIpynb(missing).catch((x: unknown) => x)) as FileAccessError;
    expect(e).toBeInstanceOf(FileAccessError);
    expect(e.message).toBe(`${missing}: cannot read: ENOENT: no such file or directory`);
  });

  it('an unknown code keeps the description of the cause, without its path', () => {
    const cause = Object.assign(new Error("EWEIRD: something odd, open '/x'"), { code: 'EWEIRD' });
    const e = new FileAccessError('read', '/x', cause);
    expect(e.message).toBe('/x: cannot read: something odd');
    expect([e.code, e.reason]).toEqual(['EWEIRD', 'something odd']);
    expect(e.cause).toBe(cause);
  });
});
