/**
 * Project settings for the command: the nearest `.dlg-compact.json`, `package.json` (its
 * `"dlg-compact"` key) or `pyproject.toml` (its `[tool.dlg-compact]` table), found upward
 * from each input's folder (lilconfig for the search, smol-toml for TOML), up to the
 * repository's root (the first folder holding `.git`) or the file system's root. In one
 * folder the three are looked at in that order, and a `package.json` or `pyproject.toml`
 * without the key does not count. Keys are the long flags without `--` (`"mode"`,
 * `"user-toks"`, ...); flags given on the command line override them.
 */
import { existsSync } from 'node:fs';
import { dirname, join, parse as parsePath, relative } from 'node:path';
import type { Command, Option } from 'commander';
import type { AsyncSearcher } from 'lilconfig';
import { UsageError } from './errors.js';

/** The settings a config file may hold (the long flags they stand for, without `--`). */
export const CONFIG_KEYS: readonly string[] = Object.freeze([
  'mode',
  'strategy',
  'profile',
  'to',
  'user-toks',
  'asst-toks',
  'call-toks',
  'result-toks',
  'max-tokens',
  'keep-recent',
  'min-saving',
  'keep-tools',
]);

/** The file names looked for in each folder, in this order. */
export const CONFIG_FILES: readonly string[] = Object.freeze(['.dlg-compact.json', 'package.json', 'pyproject.toml']);

/** One config file's settings, by commander attribute name (`userToks`), already validated. */
export interface ConfigFile {
  /** Absolute path of the file. */
  path: string;
  values: Readonly<Record<string, unknown>>;
}

/** A malformed config file (bad syntax, unknown key, wrong value): a usage error naming file and key. */
export class ConfigError extends UsageError {}

function jsonLoader(file: string, content: string): unknown {
  try {
    return JSON.parse(content);
  } catch (err) {
    throw new ConfigError(`${file}: invalid JSON: ${(err as Error).message}`);
  }
}

async function tomlLoader(file: string, content: string): Promise<unknown> {
  // Loaded when a pyproject.toml is met, so that runs without one never load the parser.
  const { parse: parseToml } = await import('smol-toml');
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(content) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`${file}: invalid TOML: ${(err as Error).message.split('\n')[0]}`);
  }
  const tool = doc.tool as Record<string, unknown> | undefined;
  return tool !== null && typeof tool === 'object' ? (tool['dlg-compact'] ?? null) : null;
}

/** Where a key lives in its file, for messages: `"mode"` or `[tool.dlg-compact] mode`. */
function keyName(file: string, key: string): string {
  if (file.endsWith('pyproject.toml')) return `[tool.dlg-compact] ${key}`;
  if (file.endsWith('package.json')) return `"dlg-compact".${key}`;
  return `"${key}"`;
}

/**
 * Check one file's settings against the program's options (choices, integer values) and
 * turn them into commander attribute values.
 * @throws ConfigError naming the file and the key.
 */
function validate(program: Command, file: string, raw: unknown): Record<string, unknown> {
  const where = (key: string) => `${file}: ${keyName(file, key)}`;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`${file}: the dlg-compact settings must be an object (a table), got ${Array.isArray(raw) ? 'a list' : JSON.stringify(raw)}`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const opt: Option | undefined = CONFIG_KEYS.includes(key) ? program.options.find((o) => o.long === `--${key}`) : undefined;
    if (opt === undefined)
      throw new ConfigError(
        `${where(key)}: unknown setting (known: ${CONFIG_KEYS.filter((k) => program.options.some((o) => o.long === `--${k}`)).join(', ')})`,
      );
    const choices = opt.argChoices;
    let text: string;
    if (choices) {
      if (typeof value !== 'string' || !choices.includes(value))
        throw new ConfigError(`${where(key)}: expected one of ${choices.join(', ')}, got ${JSON.stringify(value)}`);
      text = value;
    } else if (key === 'keep-tools') {
      // A list of tool names, or the flag's comma-separated text.
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) text = value.join(',');
      else if (typeof value === 'string') text = value;
      else throw new ConfigError(`${where(key)}: expected a list of tool names, got ${JSON.stringify(value)}`);
    } else if (key === 'min-saving') {
      // A share (0.1) or a percentage ("10%"), as the flag takes it.
      if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string') text = String(value);
      else throw new ConfigError(`${where(key)}: expected a share such as 0.1 or "10%", got ${JSON.stringify(value)}`);
    } else {
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new ConfigError(`${where(key)}: expected an integer, got ${JSON.stringify(value)}`);
      text = String(value);
    }
    let parsed: unknown = text;
    if (opt.parseArg) {
      try {
        parsed = opt.parseArg(text, undefined);
      } catch (err) {
        throw new ConfigError(`${where(key)}: ${(err as Error).message}, got ${JSON.stringify(value)}`);
      }
    }
    out[opt.attributeName()] = parsed;
  }
  return out;
}

/** Finds and caches the config file of each folder. */
export class ConfigFinder {
  readonly #program: Command;
  readonly #searchers = new Map<string, AsyncSearcher>();
  readonly #byDir = new Map<string, Promise<ConfigFile | null>>();

  constructor(program: Command) {
    this.#program = program;
  }

  /** The folder the search stops at: the repository root above `dir`, or the file system's root. */
  static stopDir(dir: string): string {
    for (let d = dir; ; d = dirname(d)) {
      if (existsSync(join(d, '.git'))) return d;
      if (dirname(d) === d) return parsePath(dir).root;
    }
  }

  /**
   * The settings that apply to files in the absolute folder `dir`, or `null` when no config
   * file is found.
   * @throws ConfigError for a malformed file (naming it and the key).
   */
  find(dir: string): Promise<ConfigFile | null> {
    let p = this.#byDir.get(dir);
    if (p === undefined) {
      p = this.#search(dir);
      this.#byDir.set(dir, p);
    }
    return p;
  }

  async #search(dir: string): Promise<ConfigFile | null> {
    const stop = ConfigFinder.stopDir(dir);
    let searcher = this.#searchers.get(stop);
    if (searcher === undefined) {
      const { lilconfig } = await import('lilconfig');
      searcher = lilconfig('dlg-compact', {
        searchPlaces: [...CONFIG_FILES],
        stopDir: stop,
        loaders: { '.json': jsonLoader, '.toml': tomlLoader },
      });
      this.#searchers.set(stop, searcher);
    }
    // A pyproject.toml without [tool.dlg-compact] stops lilconfig's search: go on above it.
    for (let from = dir; ; ) {
      const found = await searcher.search(from);
      if (found === null) return null;
      if (found.config !== null && found.config !== undefined) {
        return { path: found.filepath, values: validate(this.#program, found.filepath, found.config) };
      }
      const at = dirname(found.filepath);
      if (at === stop || dirname(at) === at) return null;
      from = dirname(at);
    }
  }
}

/** A config path as shown to the user: relative to `cwd` when below it. */
export function shownPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') ? rel : file;
}
