/**
 * The token-counter contract shared by every strategy (SPEC §9: budgets and the "strictly
 * fewer tokens" acceptance rule are measured with a caller-supplied counter).
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * THE token counter: the number of tokens of one text, a non-negative safe integer.
 * `lenToks` (exact o200k_base) is the stock one.
 */
export type TokenCounter = (text: string) => number;

/**
 * A counter over some other unit than a text — one message of a strategy's wire shape, one
 * dialog cell, or a whole message list — with the same contract (a non-negative safe
 * integer). Build one from a {@link TokenCounter} with {@link countItemsAs}, or supply any
 * function (the strategies' conformance vectors use their own estimates).
 */
export type ItemTokenCounter<T> = (item: T) => number;

/**
 * Adapt a text counter to items: the item is rendered to the text the model reads
 * (`textOf`), then counted.
 * @returns an {@link ItemTokenCounter} (its results are those of `counter`).
 */
export function countItemsAs<T>(counter: TokenCounter, textOf: (item: T) => string): ItemTokenCounter<T> {
  return (item: T) => counter(textOf(item));
}

/** True when `n` is what a counter must return: a non-negative safe integer. */
export function isTokenCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/**
 * Check what a counter returned.
 * @param where names the caller in the error message.
 * @param fail builds the error to throw (default: an InvalidArgumentError reading
 *   `WHERE: a token counter must return a non-negative integer, got N`).
 * @returns `n` (tokens).
 * @throws the error of `fail` when `n` is not a non-negative safe integer (a boolean neither).
 */
export function checkTokenCount(n: unknown, where: string, fail?: (n: unknown) => Error): number {
  if (isTokenCount(n)) return n;
  throw fail ? fail(n) : new InvalidArgumentError(`${where}: a token counter must return a non-negative integer, got ${String(n)}`);
}

/**
 * Check a counter option: `undefined` (the caller's default applies) or a function.
 * @param name the option's name in the error message (default `countTokens`).
 * @throws InvalidArgumentError `WHERE: countTokens must be a function` otherwise.
 */
export function checkCounterOption(counter: unknown, where: string, name = 'countTokens'): void {
  if (counter !== undefined && typeof counter !== 'function') throw new InvalidArgumentError(`${where}: ${name} must be a function`);
}

/** Classes that token accounting splits a conversation into. */
export type TokenClass = 'user' | 'assistant' | 'calls' | 'results' | 'code';

/** Token counts per {@link TokenClass} plus `total` (o200k_base tokens unless said otherwise). */
export type ClassTokens = Record<TokenClass | 'total', number>;
