import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SummarizerError, httpSummarizer } from '../src/strategies/summarizer-http.js';
import { InvalidArgumentError } from '../src/errors.js';
import { buildCompactionSummaryPrompt } from '../src/strategies/summary.js';

interface Seen {
  url: string;
  auth: string | undefined;
  body: unknown;
}

describe('httpSummarizer against a local HTTP server', () => {
  let server: Server;
  let base = '';
  const seen: Seen[] = [];
  const pending = new Set<ServerResponse>();

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string) => void> = {
    '/ok/v1/chat/completions': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: '## Context Summary\nall good' } }] }));
    },
    '/fail/chat/completions': (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('upstream exploded');
    },
    '/slow/chat/completions': (_req, res) => {
      pending.add(res); // never answers; closed when the server stops
    },
    '/bad/chat/completions': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices": [ this is not json');
    },
    '/nochoices/chat/completions': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"error": null}');
    },
    '/empty/chat/completions': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { content: '  \n' } }] }));
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', auth: req.headers.authorization, body: body ? JSON.parse(body) : undefined });
        const route = routes[req.url ?? ''];
        if (route) route(req, res, body);
        else {
          res.writeHead(404);
          res.end('no route');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const res of pending) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const prompt = buildCompactionSummaryPrompt([{ type: 'user', text: 'hello' }]);

  it('success: sends model, prompt and key; returns the content', async () => {
    const s = httpSummarizer({ baseUrl: `${base}/ok/v1/`, model: 'm-1', apiKey: 'k-123', timeoutMs: 5000, maxResponseTokens: 300 });
    await expect(s(prompt)).resolves.toBe('## Context Summary\nall good');
    const last = seen[seen.length - 1]!;
    expect(last.url).toBe('/ok/v1/chat/completions');
    expect(last.auth).toBe('Bearer k-123');
    expect(last.body).toEqual({ model: 'm-1', messages: [{ role: 'user', content: prompt }], max_tokens: 300 });
  });

  it('HTTP 500 is an http SummarizerError with the status', async () => {
    const s = httpSummarizer({ baseUrl: `${base}/fail`, model: 'm', timeoutMs: 5000 });
    const err = await s(prompt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SummarizerError);
    expect(err).toMatchObject({ kind: 'http', status: 500 });
    expect((err as Error).message).toContain('upstream exploded');
  });

  it('a server that never answers times out', async () => {
    const s = httpSummarizer({ baseUrl: `${base}/slow`, model: 'm', timeoutMs: 150 });
    const t0 = Date.now();
    const err = await s(prompt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SummarizerError);
    expect(err).toMatchObject({ kind: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('the caller can abort', async () => {
    const s = httpSummarizer({ baseUrl: `${base}/slow`, model: 'm', timeoutMs: 5000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await expect(s(prompt, ac.signal)).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('malformed JSON, missing choices and blank content are typed errors', async () => {
    const bad = httpSummarizer({ baseUrl: `${base}/bad`, model: 'm', timeoutMs: 5000 });
    await expect(bad(prompt)).rejects.toMatchObject({ name: 'SummarizerError', kind: 'malformed', status: 200 });
    const none = httpSummarizer({ baseUrl: `${base}/nochoices`, model: 'm', timeoutMs: 5000 });
    await expect(none(prompt)).rejects.toMatchObject({ kind: 'malformed' });
    const empty = httpSummarizer({ baseUrl: `${base}/empty`, model: 'm', timeoutMs: 5000 });
    await expect(empty(prompt)).rejects.toMatchObject({ kind: 'empty' });
  });

  it('refuses an oversized prompt without sending it', async () => {
    const before = seen.length;
    const s = httpSummarizer({ baseUrl: `${base}/ok/v1`, model: 'm', timeoutMs: 5000, maxRequestTokens: 10 });
    await expect(s(prompt)).rejects.toMatchObject({ kind: 'too-large' });
    expect(seen.length).toBe(before);
  });

  it('an unreachable server is a network error', async () => {
    // A port that was free a moment ago: bind, read the port, close.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const s = httpSummarizer({ baseUrl: `http://127.0.0.1:${port}`, model: 'm', timeoutMs: 5000 });
    await expect(s(prompt)).rejects.toMatchObject({ kind: 'network' });
  });

  it('validates its options', () => {
    expect(() => httpSummarizer({ baseUrl: '', model: 'm' })).toThrow(InvalidArgumentError);
    expect(() => httpSummarizer({ baseUrl: base, model: '' })).toThrow(InvalidArgumentError);
    expect(() => httpSummarizer({ baseUrl: base, model: 'm', timeoutMs: 0 })).toThrow(InvalidArgumentError);
    expect(() => httpSummarizer({ baseUrl: base, model: 'm', maxRequestTokens: 1.5 })).toThrow(InvalidArgumentError);
    expect(() => httpSummarizer({ baseUrl: 'not a url', model: 'm' })).toThrow(InvalidArgumentError);
  });
});
