/**
 * Raw HTTP for hostile-input tests. `fetch` refuses much of what a fuzzer wants to send (a body on
 * GET or HEAD, odd methods, arbitrary bytes in the path), so these go through `node:http` and, for
 * requests even `node:http` will not build, through a plain TCP socket.
 */
import http from 'node:http';
import net from 'node:net';

/** One raw request. Headers are sent exactly as given (no defaults besides Host and Content-Length). */
export interface RawRequest {
  method: string;
  /** Path and query, sent as is: only bytes 0x21-0xff (what `node:http` lets through). */
  path: string;
  headers?: Record<string, string>;
  /** Sent as UTF-8 (a string) or as is (a Buffer); nothing is sent when undefined. */
  body?: string | Buffer;
}

/** What came back: status, lower-cased headers and the body text; `error` when the connection failed. */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or `undefined` if it is empty or not JSON. */
  json: unknown;
  /** Set when no response arrived (reset, hang-up, timeout): `status` is then 0. */
  error?: string;
}

const agent = new http.Agent({ keepAlive: false });

/** Sends one request with `node:http`; never rejects, a failed connection comes back as `error`. */
export function rawRequest(baseUrl: string, request: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    const done = (response: RawResponse) => {
      if (!settled) {
        settled = true;
        resolve(response);
      }
    };
    let req: http.ClientRequest;
    try {
      req = http.request({
        agent,
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: request.headers ?? {},
        timeout: timeoutMs,
      });
    } catch (error) {
      // The request could not even be built (the client refused a header or path): a test bug.
      throw new Error(`node:http refused to build the request: ${(error as Error).message}`);
    }
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        done({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text) });
      });
      res.on('error', (error) => done({ status: 0, headers: {}, text: '', json: undefined, error: error.message }));
    });
    req.on('timeout', () => {
      req.destroy(new Error(`no response within ${timeoutMs} ms`));
    });
    req.on('error', (error) => done({ status: 0, headers: {}, text: '', json: undefined, error: error.message }));
    if (request.body !== undefined) req.end(request.body);
    else req.end();
  });
}

/**
 * Writes `head` (request line and headers, CRLF-separated, without the blank line) and `body` to a
 * TCP socket and reads until the server closes. For requests `node:http` would refuse to send.
 */
export function socketRequest(baseUrl: string, head: string, body: Buffer | string = '', timeoutMs = 10_000): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseRawResponse(Buffer.concat(chunks)), ...(error !== undefined && chunks.length === 0 ? { error } : {}) });
    };
    const timer = setTimeout(() => finish(`no end of response within ${timeoutMs} ms`), timeoutMs);
    socket.on('connect', () => {
      socket.write(`${head}\r\nConnection: close\r\n\r\n`);
      socket.end(body);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish());
    socket.on('close', () => finish('connection closed'));
    socket.on('error', (error) => finish(error.message));
  });
}

function parseRawResponse(raw: Buffer): RawResponse {
  const text = raw.toString('utf8');
  const headerEnd = text.indexOf('\r\n\r\n');
  if (headerEnd === -1) return { status: 0, headers: {}, text, json: undefined, error: raw.length === 0 ? 'empty response' : 'no header end' };
  const [statusLine = '', ...headerLines] = text.slice(0, headerEnd).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: http.IncomingHttpHeaders = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let bodyText = text.slice(headerEnd + 4);
  if (/chunked/i.test(String(headers['transfer-encoding'] ?? ''))) bodyText = dechunk(bodyText);
  return { status, headers, text: bodyText, json: parseJson(bodyText) };
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd === -1) return out;
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!Number.isFinite(size) || size === 0) return out;
    // Sizes count bytes; the bodies here are ASCII JSON, so characters are bytes.
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
