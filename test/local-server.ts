/**
 * A local OpenAI-compatible endpoint for summariser tests: an HTTP server on 127.0.0.1 (a
 * free port) that hands each request's path and parsed JSON body to `answer`, and stops on its
 * own after a minute whatever happens.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What `answer` returns: HTTP status and body text, or `null` to never answer (a hang). */
export type LocalAnswer = { status: number; body: string } | null;

/** A running local server: its base URL (`http://127.0.0.1:PORT`) and a way to stop it. */
export interface LocalServer {
  base: string;
  close(): Promise<void>;
}

/** A chat-completions answer body whose one message is `content`. */
export function completion(content: string): string {
  return JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] });
}

/**
 * Start the server. `answer(path, body, req)` is called once the request body is read; a body
 * that is not JSON arrives as `undefined`.
 */
export async function startLocalServer(answer: (path: string, body: unknown, req: IncomingMessage) => LocalAnswer): Promise<LocalServer> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(data);
      } catch {
        body = undefined;
      }
      const a = answer(req.url ?? '', body, req);
      if (a === null) return;
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Bounded: whatever happens, the server stops on its own.
  setTimeout(() => {
    server.closeAllConnections();
    server.close();
  }, 60_000).unref();
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
