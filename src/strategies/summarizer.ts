/**
 * The one summariser contract of every strategy that asks a model for a summary (SPEC §9:
 * the summariser is a callback), and the abort handling they share.
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * A summariser: gets a prompt, answers with the summary text (Markdown), or throws / rejects.
 * The caller's abort signal, when one was given, comes second (honouring it is optional: an
 * aborted run is refused whether or not the summariser stops). `httpSummarizer` builds one
 * for an OpenAI-compatible endpoint.
 */
export type Summarizer = (prompt: string, signal?: AbortSignal) => string | Promise<string>;

/**
 * Check an optional abort signal option (`undefined`/`null`, or an object with a boolean
 * `aborted` and `addEventListener`, as `AbortSignal` has).
 * @throws InvalidArgumentError naming `where` otherwise.
 */
export function checkSignal(signal: unknown, where: string): void {
  if (signal === undefined || signal === null) return;
  const s = signal as Partial<AbortSignal>;
  if (typeof s !== 'object' || typeof s.aborted !== 'boolean' || typeof s.addEventListener !== 'function') {
    throw new InvalidArgumentError(`${where}: signal must be an AbortSignal`);
  }
}

/**
 * Call `work` and wait for its result, unless `signal` aborts first: then reject at once with
 * the signal's reason (an `AbortError` DOMException by default; a `TimeoutError` for
 * `AbortSignal.timeout`), without waiting for `work` (a summariser that never settles cannot
 * hang the caller). An already aborted signal rejects without calling `work`. Without a
 * signal this is `await work()`. Check the signal first with {@link checkSignal}.
 */
export function untilAborted<T>(work: () => T | Promise<T>, signal?: AbortSignal | null): Promise<T> {
  if (signal === undefined || signal === null) return Promise.resolve().then(work);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve()
      .then(work)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
