/**
 * A summariser backed by an OpenAI-compatible chat-completions endpoint (SPEC §9: the
 * summariser of summary and auto compaction is a callback; this is the stock one).
 *
 * Browser-safe: uses the global `fetch` and `AbortController`, imports nothing from `node:`.
 * Configuration comes from arguments only; reading environment variables is the caller's job.
 */
import { DlgError, InvalidArgumentError } from '../errors.js';
import { fitsToks } from '../tokens/index.js';

/** What went wrong in a summariser request. */
export type SummarizerErrorKind = 'too-large' | 'network' | 'timeout' | 'aborted' | 'http' | 'malformed' | 'empty';

/**
 * A summariser request failed. `kind` says how; `status` is the HTTP status for `http`
 * (and for `malformed`/`empty`, the status of the response that was unusable).
 */
export class SummarizerError extends DlgError {
  constructor(
    message: string,
    readonly kind: SummarizerErrorKind,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Why a request could not be made, in a few words. Node's fetch throws `TypeError: fetch
 * failed` and keeps the reason in `cause` (`connect ECONNREFUSED 127.0.0.1:9`, or an
 * `AggregateError` of one such error per address tried): the reason is what a user needs.
 */
function networkCause(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error)) return String(error);
  const each = cause instanceof AggregateError && cause.errors.length > 0 ? cause.errors : [cause];
  const texts = [...new Set(each.map((e: unknown) => (e instanceof Error ? e.message || String((e as { code?: unknown }).code ?? '') : String(e))))];
  const text = texts.filter((t) => t !== '').join('; ');
  return text === '' ? String(error) : text;
}

/**
 * Options of {@link httpSummarizer}.
 * - `baseUrl`: API root; requests go to `baseUrl + '/chat/completions'` (a trailing `/` is
 *   ignored), e.g. `https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`.
 * - `model`: model name sent as `model`.
 * - `apiKey`: sent as `Authorization: Bearer <apiKey>` when non-empty.
 * - `timeoutMs`: whole-request deadline in milliseconds, body included (default 120000).
 * - `maxRequestTokens`: refuse (kind `too-large`, nothing sent) a prompt of more o200k_base
 *   tokens than this. Default: no limit.
 * - `maxResponseTokens`: sent as `max_tokens` when given.
 * - `systemPrompt`: sent as a leading system message when given.
 * - `fetch`: fetch implementation (default the global `fetch`).
 */
export interface HttpSummarizerOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
  maxRequestTokens?: number;
  maxResponseTokens?: number;
  systemPrompt?: string;
  fetch?: typeof fetch;
}

/** A prompt-to-summary function; `signal` lets the caller cancel (kind `aborted`). */
export type HttpSummarizer = (prompt: string, signal?: AbortSignal) => Promise<string>;

/** Default request deadline, milliseconds. */
export const DEFAULT_SUMMARIZER_TIMEOUT_MS = 120_000;

function snippet(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 200 ? one.slice(0, 200) + '…' : one;
}

function extractContent(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) return undefined;
  const msg = (choices[0] as { message?: unknown } | null)?.message;
  if (msg === null || typeof msg !== 'object') return undefined;
  const content = (msg as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    // Some servers return content parts: keep the text ones.
    const texts = content
      .filter((p): p is { type: string; text: string } => p !== null && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string')
      .map((p) => p.text);
    return texts.length ? texts.join('') : undefined;
  }
  if (content === null) return '';
  return undefined;
}

/**
 * Build a summariser that sends `prompt` (for instance the output of
 * `buildCompactionSummaryPrompt`) as one user message to an OpenAI-compatible
 * `POST /chat/completions` and resolves to `choices[0].message.content` (string, or the
 * joined text parts), unchanged.
 *
 * The returned function rejects with {@link SummarizerError}:
 * `too-large` (prompt over `maxRequestTokens`, checked before sending), `network` (fetch
 * failed), `timeout` (over `timeoutMs`), `aborted` (the caller's signal), `http` (non-2xx
 * status; the message quotes the start of the body), `malformed` (body not JSON or without
 * `choices[0].message.content`), `empty` (content blank after trimming).
 * @throws InvalidArgumentError (synchronously) on bad options; the returned function rejects
 *   with InvalidArgumentError when `prompt` is not a string.
 */
export function httpSummarizer(options: HttpSummarizerOptions): HttpSummarizer {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('httpSummarizer: options must be an object');
  const { baseUrl, model, apiKey, maxRequestTokens, maxResponseTokens, systemPrompt } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_SUMMARIZER_TIMEOUT_MS;
  const doFetch = options.fetch ?? globalThis.fetch;
  if (typeof baseUrl !== 'string' || baseUrl === '') throw new InvalidArgumentError('httpSummarizer: baseUrl must be a non-empty string');
  if (typeof model !== 'string' || model === '') throw new InvalidArgumentError('httpSummarizer: model must be a non-empty string');
  if (apiKey !== undefined && typeof apiKey !== 'string') throw new InvalidArgumentError('httpSummarizer: apiKey must be a string');
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
    throw new InvalidArgumentError(`httpSummarizer: timeoutMs must be a positive number, got ${String(timeoutMs)}`);
  }
  for (const [name, v] of [
    ['maxRequestTokens', maxRequestTokens],
    ['maxResponseTokens', maxResponseTokens],
  ] as const) {
    if (v !== undefined && (!Number.isSafeInteger(v) || v <= 0)) {
      throw new InvalidArgumentError(`httpSummarizer: ${name} must be a positive integer, got ${String(v)}`);
    }
  }
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string') throw new InvalidArgumentError('httpSummarizer: systemPrompt must be a string');
  if (typeof doFetch !== 'function') throw new InvalidArgumentError('httpSummarizer: no fetch implementation available');
  let url: string;
  try {
    url = new URL(baseUrl.replace(/\/+$/, '') + '/chat/completions').toString();
  } catch (error) {
    throw new InvalidArgumentError(`httpSummarizer: invalid baseUrl ${baseUrl}`, { cause: error });
  }

  // The endpoint as messages name it: credentials a base URL may carry are masked.
  const shown = new URL(url);
  if (shown.username !== '' || shown.password !== '') {
    shown.username = '***';
    shown.password = '';
  }
  const shownUrl = shown.toString();

  return async (prompt: string, signal?: AbortSignal): Promise<string> => {
    if (typeof prompt !== 'string') throw new InvalidArgumentError('httpSummarizer: prompt must be a string');
    if (maxRequestTokens !== undefined && !fitsToks((systemPrompt ?? '') + prompt, maxRequestTokens)) {
      throw new SummarizerError(`summariser prompt exceeds ${maxRequestTokens} tokens; nothing was sent`, 'too-large');
    }
    const messages = systemPrompt === undefined ? [] : [{ role: 'system', content: systemPrompt }];
    messages.push({ role: 'user', content: prompt });
    const body: Record<string, unknown> = { model, messages };
    if (maxResponseTokens !== undefined) body.max_tokens = maxResponseTokens;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = (): void => controller.abort();
    if (signal) {
      if (signal.aborted) controller.abort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
    const failure = (error: unknown, status?: number): SummarizerError => {
      if (error instanceof SummarizerError) return error;
      if (timedOut) return new SummarizerError(`summariser request timed out after ${timeoutMs} ms`, 'timeout', status, { cause: error });
      if (signal?.aborted) return new SummarizerError('summariser request was aborted', 'aborted', status, { cause: error });
      let cause = networkCause(error).split(url).join(shownUrl);
      // fetch refuses a list of ports (9, 25, 6000, ...) before connecting, saying only "bad port".
      if (cause === 'bad port') cause = `fetch refuses to connect to port ${shown.port} (bad port)`;
      return new SummarizerError(`summariser request to ${shownUrl} failed: ${cause}`, 'network', status, { cause: error });
    };
    try {
      let res: Response;
      try {
        res = await doFetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal });
      } catch (error) {
        throw failure(error);
      }
      let text: string;
      try {
        text = await res.text();
      } catch (error) {
        throw failure(error, res.status);
      }
      if (!res.ok) throw new SummarizerError(`summariser HTTP ${res.status}: ${snippet(text)}`, 'http', res.status);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new SummarizerError(`summariser returned malformed JSON: ${snippet(text)}`, 'malformed', res.status, { cause: error });
      }
      const content = extractContent(parsed);
      if (content === undefined) {
        throw new SummarizerError(`summariser response has no choices[0].message.content: ${snippet(text)}`, 'malformed', res.status);
      }
      if (content.trim() === '') throw new SummarizerError('summariser returned an empty summary', 'empty', res.status);
      return content;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  };
}
