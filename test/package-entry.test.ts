/**
 * The BUILT package as a user gets it: a project whose node_modules/dlg-compact is this
 * package runs the README's "Library" example verbatim with plain Node, so `import … from
 * 'dlg-compact'` goes through package.json `exports` to dist/. Its outputs must equal what the
 * sources (../src) compute. Run alone, this file rebuilds dist/ first when it is stale.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './built-cli.js';
import { ROOT, readText } from './support.js';
import { compactChat } from '../src/dsl/render.js';
import { mkMsg, toolPart, toolResult } from '../src/chat/message.js';
import { compactDialog, dlg2compact } from '../src/dialog/compact.js';
import { dumpsIpynb, readsIpynbBytes } from '../src/notebook/index.js';

const DEMO = join(ROOT, 'notebooks', 'demo.ipynb');

/** The first ```ts block after the README heading `## Library`. */
function readmeLibraryExample(): string {
  const readme = readText(join(ROOT, 'README.md'));
  const at = readme.indexOf('\n## Library\n');
  if (at < 0) throw new Error('README.md has no "## Library" section');
  const m = /\n```ts\n([\s\S]*?)\n```\n/.exec(readme.slice(at));
  if (!m) throw new Error('README.md "## Library" has no ```ts example');
  return m[1]!;
}

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'dlg-package-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'dlg-compact'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run an ES module with plain Node in the user's project `dir`. */
function node(file: string, source: string): { code: number | null; stdout: string; stderr: string } {
  writeFileSync(join(dir, file), source);
  const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the built package entry', () => {
  it("resolves 'dlg-compact' and 'dlg-compact/core' through package.json exports to dist/", () => {
    const r = node(
      'resolve.mjs',
      [
        "console.log(import.meta.resolve('dlg-compact'));",
        "console.log(import.meta.resolve('dlg-compact/core'));",
        "const m = await import('dlg-compact');",
        'console.log(typeof m.readIpynb, typeof m.dlg2compact);',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
    const [root, core, kinds] = r.stdout.trim().split('\n');
    // Node follows the node_modules link to this package's real folder.
    expect(root).toBe(pathToFileURL(join(realpathSync(ROOT), 'dist', 'index.js')).href);
    expect(core).toBe(pathToFileURL(join(realpathSync(ROOT), 'dist', 'core.js')).href);
    expect(kinds).toBe('function function');
  });

  it("runs the README's Library example verbatim; its outputs equal the sources'", () => {
    copyFileSync(DEMO, join(dir, 'analysis.ipynb'));
    // The example's own lines, then one that shows its flat document.
    const source = `${readmeLibraryExample()}\nconsole.log('\\u0000' + JSON.stringify(doc));\n`;
    const r = node('example.mjs', source);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [chatOut, docJson] = r.stdout.split('\u0000');

    const chat = [
      mkMsg('List the project files.'),
      mkMsg(['Let me look.', toolPart('Bash', { command: 'ls -la' }, 'c1')], 'assistant'),
      toolResult('a.py\nb.py', 'Bash', 'c1'),
    ];
    expect(chatOut).toBe(compactChat(chat) + '\n');
    const demoBytes = readFileSync(DEMO);
    expect(JSON.parse(docJson!)).toBe(dlg2compact(readsIpynbBytes(demoBytes, 'analysis.ipynb'), { resultToks: 80 }));
    const compacted = compactDialog(readsIpynbBytes(demoBytes, 'analysis.ipynb'), { asstToks: 300 });
    expect(readFileSync(join(dir, 'analysis-comp.ipynb'), 'utf8')).toBe(dumpsIpynb(compacted));
    expect(readFileSync(join(dir, 'analysis.ipynb')).equals(demoBytes)).toBe(true); // the input is only read
  });
});

describe('the public surface', () => {
  const ROOT_NAMES = [
    'BudgetError',
    'DlgError',
    'Dialog',
    'FileAccessError',
    'InvalidArgumentError',
    'JsonParseError',
    'Message',
    'NotebookError',
    'bashCall',
    'callRenderers',
    'chat2dlg',
    'compactAsst',
    'compactBody',
    'compactCall',
    'compactChat',
    'compactContent',
    'compactMsg',
    'compactPolicy',
    'compactReply',
    'compactResult',
    'compactText',
    'compactTool',
    'compactUser',
    'decToks',
    'dlg2chat',
    'dlg2compact',
    'dumpsIpynb',
    'encToks',
    'fencedCode',
    'fitsToks',
    'flatNotebook',
    'fmt2hist',
    'fromNotebookContent',
    'genericCall',
    'hist2fmt',
    'httpSummarizer',
    'joinCompacts',
    'lenToks',
    'llmSettingsFromEnv',
    'measureDialog',
    'microCompactDialog',
    'mkMsg',
    'msgFromJSON',
    'msgToJSON',
    'planDialogMicro',
    'planDialogSummary',
    'readIpynb',
    'readsIpynb',
    'seededIds',
    'summarizeDialog',
    'toNotebookContent',
    'toolPart',
    'toolResult',
    'truncToksMid',
    'validateDialog',
    'writeIpynb',
  ];
  const SUBPATHS = ['core', 'python', 'tokens', 'chat', 'dsl', 'strategies', 'dialog', 'notebook', 'files'];

  it('the root exports exactly the curated names (56 values + 4 types, at most 60)', () => {
    const r = node('names.mjs', "console.log(JSON.stringify(Object.keys(await import('dlg-compact')).sort()));");
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([...ROOT_NAMES].sort());
    const dts = readFileSync(join(ROOT, 'dist', 'core.d.ts'), 'utf8');
    for (const t of ['Msg', 'Part', 'Policy', 'Summarizer']) expect(dts).toContain(`type ${t}`);
  });

  it('every documented subpath resolves, and no entry exports a test hook or writer-only state', () => {
    const src = [
      `const out = {};`,
      `for (const s of ${JSON.stringify(SUBPATHS)}) out[s] = Object.keys(await import('dlg-compact/' + s));`,
      `out.root = Object.keys(await import('dlg-compact'));`,
      'console.log(JSON.stringify(out));',
    ].join('\n');
    const r = node('subpaths.mjs', src);
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as Record<string, string[]>;
    for (const [entry, names] of Object.entries(out)) {
      expect(names.length, entry).toBeGreaterThan(0);
      for (const hook of ['tokensInternals', 'setHeapFrom', 'clearCache', 'cellWire', 'dialogWire']) expect(names, entry).not.toContain(hook);
    }
    // Names the conformance suites use stay reachable from some entry.
    const all = new Set(Object.values(out).flat());
    for (const n of [
      'compactCode',
      'convTools',
      'midCuts',
      'aiOutput',
      'readsIpynbBytes',
      'compactDialog',
      'summarizeCompaction',
      'microCompact',
      'evidenceRecord',
      'literalEval',
      'pyDumps',
      'parseJson',
      'readIpynbSync',
      'writeIfChanged',
      'autoCompactNode',
    ])
      expect(all.has(n), n).toBe(true);
    expect(out.tokens).toContain('lenToks');
    expect(out.files).toContain('readIpynb');
  });
});
