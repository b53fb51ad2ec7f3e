/**
 * Where the LLM summariser sends its request, resolved from explicit settings and an
 * environment object (never `process.env` itself, so this stays usable in a browser).
 */
import { InvalidArgumentError } from '../errors.js';

/** Where the HTTP summariser sends its request. */
export interface LlmSettings {
  /** API root, e.g. `http://127.0.0.1:8080/v1` (requests go to `baseUrl + '/chat/completions'`). */
  baseUrl: string;
  model: string;
  /** Sent as a bearer token when set. */
  apiKey?: string;
}

/** Explicit settings (command-line flags, options); each wins over the environment. */
export interface LlmSettingsFlags {
  url?: string;
  model?: string;
  apiKey?: string;
}

/** An environment: variable name -> value (`process.env` in Node). */
export type Env = Readonly<Record<string, string | undefined>>;

/** API root of the LLM summariser when neither the caller nor the environment names one. */
export const DEFAULT_LLM_BASE_URL = 'https://api.openai.com/v1';

/** What is wrong with resolved settings: no model, a base URL that is not a URL, or not http(s). */
export type LlmSettingsProblem = 'no-model' | 'not-a-url' | 'not-http';

/** The LLM settings cannot be used; `problem` says why (the message names the value). */
export class LlmSettingsError extends InvalidArgumentError {
  constructor(
    message: string,
    readonly problem: LlmSettingsProblem,
  ) {
    super(message);
  }
}

/** The first of `vals` that is a non-empty string (empty strings count as unset). */
function firstSet(...vals: Array<string | undefined>): string | undefined {
  for (const v of vals) if (typeof v === 'string' && v !== '') return v;
  return undefined;
}

function checkEnv(env: unknown, where: string): asserts env is Env {
  if (env === null || typeof env !== 'object') throw new InvalidArgumentError(`${where}: env must be an object`);
}

/**
 * The settings of an LLM summariser that has been asked for, whatever switched it on:
 * - base URL: `flags.url`, `DLG_COMPACT_BASE_URL`, `OPENAI_BASE_URL`, then
 *   {@link DEFAULT_LLM_BASE_URL}; it must be an `http:` or `https:` URL;
 * - model: `flags.model`, `DLG_COMPACT_MODEL`, `OPENAI_MODEL` (required);
 * - API key (optional): `flags.apiKey`, `DLG_COMPACT_API_KEY`, `OPENAI_API_KEY`.
 * Empty strings count as unset.
 * @throws LlmSettingsError (an InvalidArgumentError) when no model is named or the base URL
 *   is not an http(s) URL; InvalidArgumentError when `env` is not an object.
 */
export function resolveLlmSettings(env: Env, flags: LlmSettingsFlags = {}): LlmSettings {
  checkEnv(env, 'resolveLlmSettings');
  const baseUrl = firstSet(flags.url, env.DLG_COMPACT_BASE_URL, env.OPENAI_BASE_URL) ?? DEFAULT_LLM_BASE_URL;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new LlmSettingsError(`the LLM base URL is not a URL: ${baseUrl}`, 'not-a-url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new LlmSettingsError(`the LLM base URL must be http or https: ${baseUrl}`, 'not-http');
  }
  const model = firstSet(flags.model, env.DLG_COMPACT_MODEL, env.OPENAI_MODEL);
  if (model === undefined) throw new LlmSettingsError('the LLM summariser needs a model (DLG_COMPACT_MODEL or OPENAI_MODEL)', 'no-model');
  const apiKey = firstSet(flags.apiKey, env.DLG_COMPACT_API_KEY, env.OPENAI_API_KEY);
  return apiKey === undefined ? { baseUrl, model } : { baseUrl, model, apiKey };
}

/**
 * The LLM summariser's settings, or `null` for the offline DSL summariser. The LLM is used
 * only when asked for: `flags.url` or `flags.model` set, or `DLG_COMPACT_MODEL` in `env`.
 * `OPENAI_*` variables fill in the rest but never switch it on by themselves: a dialog is not
 * sent anywhere because `OPENAI_MODEL` happens to be set. Once asked for, the settings are
 * those of {@link resolveLlmSettings}. Empty strings count as unset (a command that rejects
 * an empty flag checks that itself).
 * @throws LlmSettingsError as {@link resolveLlmSettings}; InvalidArgumentError when `env`
 *   is not an object.
 */
export function llmSettingsFromEnv(env: Env, flags: LlmSettingsFlags = {}): LlmSettings | null {
  checkEnv(env, 'llmSettingsFromEnv');
  if (firstSet(flags.url, flags.model, env.DLG_COMPACT_MODEL) === undefined) return null;
  return resolveLlmSettings(env, flags);
}
