/**
 * `--print-config`: the settings that apply to the inputs (or, without inputs, to files in
 * the working folder), each with where it comes from: a flag, a config file, or the default.
 * Inputs that share a config file are listed together. Nothing is read but the config files.
 */
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { compactPolicy } from '../dsl/render.js';
import { DEFAULT_MIN_SAVING, KEEP_RECENT_MIN, KEEP_RECENT_RATIO, MICRO_KEEP_RECENT, PRESERVE_RESULT_TOOLS } from '../strategies/defaults.js';
import { CONFIG_KEYS, type ConfigFinder, shownPath } from './config.js';
import { expandInputs } from './inputs.js';
import type { CliIO } from './io.js';
import { type CliOptions, inapplicableSettings } from './options.js';
import { printable } from './report.js';

/** Defaults shown for the settings that have no commander default. */
const SHOWN_DEFAULTS: Readonly<Record<string, unknown>> = {
  to: 'ipynb',
  userToks: compactPolicy.userToks,
  asstToks: compactPolicy.asstToks,
  callToks: compactPolicy.callToks,
  resultToks: compactPolicy.resultToks,
  profile: compactPolicy.profile,
};

/**
 * The default of a setting that depends on the strategy (by option attribute): its value
 * (`null` when the dialog decides it or the strategy does not use it) and, where the value
 * alone would mislead, the words shown in its place (`--json` shows only the value).
 */
function strategyDefault(attr: string, strategy: unknown): { value: unknown; text?: string } | undefined {
  switch (attr) {
    case 'maxTokens':
      return { value: null, text: strategy === 'summary' ? '(always summarise)' : strategy === 'micro' ? '(dsl and summary only)' : '(no limit)' };
    case 'keepRecent':
      if (strategy === 'micro') return { value: MICRO_KEEP_RECENT };
      if (strategy === 'summary') return { value: null, text: `(${KEEP_RECENT_RATIO * 100}% of the cells, at least ${KEEP_RECENT_MIN})` };
      return { value: null, text: '(summary and micro only)' };
    case 'minSaving':
      return strategy === 'summary' ? { value: DEFAULT_MIN_SAVING } : { value: null, text: '(summary only)' };
    case 'keepTools':
      return { value: null, text: strategy === 'micro' ? `(none beyond ${PRESERVE_RESULT_TOOLS.join(', ')})` : '(micro only)' };
    default:
      return undefined;
  }
}

interface Group {
  inputs: string[];
  config: string | null;
  values: Readonly<Record<string, unknown>>;
}

/**
 * Print the merged settings, as text (`key = value  (source)`) or, with `--json`, one record
 * per group of inputs: `{inputs, config, settings: {key: {value, source}}}`, `source` being
 * `"--flag"`, the config file's path or `"default"` (`value` `null`: not set).
 * @returns the exit status (0).
 * @throws ConfigError for a malformed config file.
 */
export async function printConfig(program: Command, args: readonly string[], opts: CliOptions, io: CliIO, finder: ConfigFinder | null): Promise<number> {
  const groups = new Map<string, Group>();
  const add = async (name: string, dir: string) => {
    const found = finder === null ? null : await finder.find(dir);
    const key = found?.path ?? '';
    let g = groups.get(key);
    if (g === undefined) {
      g = { inputs: [], config: found === null ? null : shownPath(found.path, io.cwd), values: found?.values ?? {} };
      groups.set(key, g);
    }
    g.inputs.push(name);
  };
  if (args.length === 0) await add('.', io.cwd);
  for (const i of await expandInputs(args, io.cwd)) {
    if (i.kind === 'file') await add(i.path, dirname(i.abs));
    else if (i.kind === 'stdin') await add('-', io.cwd);
  }
  const raw = program.opts();
  const fromCli = (name: string) => program.getOptionValueSource(name) === 'cli';
  for (const g of groups.values()) {
    const settings: Record<string, { value: unknown; source: string; ignored?: string }> = {};
    // The file's keys that this run leaves out, and why.
    const ignored = new Map(inapplicableSettings(g.values, raw, fromCli, io.env).map((x) => [x.attr, x.why]));
    // The words shown in place of a default's value (strategyDefault), by key.
    const described = new Map<string, string>();
    for (const key of CONFIG_KEYS) {
      const opt = program.options.find((o) => o.long === `--${key}`);
      if (opt === undefined) continue;
      const attr = opt.attributeName();
      if (fromCli(attr)) settings[key] = { value: raw[attr], source: `--${key}` };
      else if (attr in g.values && ignored.has(attr)) settings[key] = { value: g.values[attr], source: g.config!, ignored: ignored.get(attr)! };
      else if (attr in g.values) settings[key] = { value: g.values[attr], source: g.config! };
      else {
        const byStrategy = raw[attr] === undefined ? strategyDefault(attr, settings.strategy?.value) : undefined;
        settings[key] = { value: raw[attr] ?? byStrategy?.value ?? SHOWN_DEFAULTS[attr] ?? null, source: 'default' };
        if (byStrategy?.text !== undefined) described.set(key, byStrategy.text);
      }
    }
    if (opts.json) {
      io.stdout.write(JSON.stringify({ inputs: g.inputs, config: g.config, settings }) + '\n');
      continue;
    }
    const shown = g.inputs.length <= 3 ? g.inputs.join(', ') : `${g.inputs.slice(0, 3).join(', ')} and ${g.inputs.length - 3} more`;
    io.stdout.write(printable(`${shown}: ${g.config === null ? 'no settings file' : `settings from ${g.config}`}`) + '\n');
    for (const [key, { value, source, ignored: why }] of Object.entries(settings)) {
      const shownValue = described.get(key) ?? (value === null ? '(not set)' : String(value));
      io.stdout.write(printable(`  ${key} = ${shownValue}  (${source}${why === undefined ? '' : `; ignored: ${why}`})`) + '\n');
    }
  }
  return 0;
}
