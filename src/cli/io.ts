/**
 * The outside world of the command: its output streams, standard input, working directory and
 * environment, and those of the real process (the defaults). Tests pass their own.
 */

/** Output stream the command writes to (a subset of `NodeJS.WriteStream`). */
export interface CliStream {
  write(chunk: string): unknown;
  /** True when the stream is a terminal: enables the progress bar (on stderr). */
  isTTY?: boolean;
}

/** The outside world of the command (`main`); every field defaults to the real process's. */
export interface CliIO {
  stdout: CliStream;
  stderr: CliStream;
  /** Reads standard input to its end, as bytes (used for the input `-`). */
  readStdin: () => Promise<Uint8Array>;
  /** Directory relative paths, globs and outputs are resolved against. */
  cwd: string;
  /**
   * Environment the LLM settings are read from (`DLG_COMPACT_MODEL`, `DLG_COMPACT_BASE_URL`,
   * `DLG_COMPACT_API_KEY`, `OPENAI_MODEL`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`); default
   * `process.env`.
   */
  env: Readonly<Record<string, string | undefined>>;
}

/** The real process's streams, standard input, working directory and environment. */
export function defaultIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    env: process.env,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    },
  };
}
