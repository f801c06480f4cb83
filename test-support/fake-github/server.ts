/**
 * The fake GitHub's server: HTTP on 127.0.0.1 over the state (state.ts). Each request is
 * recorded, authenticated, matched to its operation and checked against the contract
 * (contract.ts), refused when the token is read-only or a fault is due, answered by the routes
 * (routes.ts), and the answer checked against the contract before it is sent.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { checkRequest, checkResponse, DOCS, findOperation, loadContract } from './contract.js';
import { answer, type Reply } from './routes.js';
import { FakeGitHubState } from './state.js';
import type { FakeGitHubOptions, RecordedRequest } from './types.js';

export class FakeGitHub extends FakeGitHubState {
  private readonly server: Server;

  constructor(opts: FakeGitHubOptions = {}) {
    super(opts);
    loadContract();
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        this.violations.push(`fake-github internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'fake-github internal error' }));
      });
    });
  }

  /** Start listening on 127.0.0.1 (an ephemeral port). */
  async listen(): Promise<this> {
    await new Promise<void>((resolveListen, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolveListen());
    });
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections?.();
    await new Promise<void>((resolveClose) => this.server.close(() => resolveClose()));
  }

  /** Throws with every recorded contract violation (call at the end of each test). */
  assertNoViolations(): void {
    if (this.violations.length > 0) {
      throw new Error(`fake GitHub API saw ${this.violations.length} contract violation(s):\n- ${this.violations.join('\n- ')}`);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const method = (req.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v ?? '']));
    let body: unknown;
    let bodyIsJson = false;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
        bodyIsJson = true;
      } catch {
        body = rawBody;
      }
    }
    const record: RecordedRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body, rawBody, status: 0 };
    this.requests.push(record);
    await this.onRequest?.({ method, path: url.pathname });
    const send = (reply: Reply): void => {
      record.status = reply.status;
      const base: Record<string, string> = {
        'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
        'x-github-api-version-selected': '2022-11-28',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': '4999',
        'x-ratelimit-used': '1',
        'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
        'x-ratelimit-resource': 'core',
      };
      if (reply.text !== undefined) {
        res.writeHead(reply.status, { ...base, 'content-type': 'text/plain; charset=utf-8', ...reply.headers });
        res.end(reply.text);
      } else if (reply.body === undefined) {
        res.writeHead(reply.status, { ...base, ...reply.headers });
        res.end();
      } else {
        res.writeHead(reply.status, { ...base, 'content-type': 'application/json; charset=utf-8', ...reply.headers });
        res.end(JSON.stringify(reply.body));
      }
    };
    const violation = (message: string): void => {
      this.violations.push(message);
      send({ status: 500, body: { message: `fake-github contract violation: ${message}`, documentation_url: DOCS } });
    };

    // the log download target: a signed URL, no token needed
    const logMatch = /^\/_logs\/(\d+)$/.exec(url.pathname);
    if (logMatch && method === 'GET') {
      const jobId = Number(logMatch[1]);
      const text = this.logTokens.get(url.searchParams.get('sig') ?? '') === jobId ? this.logs.get(jobId) : undefined;
      send(text === undefined ? { status: 404, text: 'BlobNotFound' } : { status: 200, text });
      return;
    }

    // authentication
    const auth = /^(?:token|bearer)\s+(\S+)$/i.exec(headers.authorization ?? '');
    if (!auth) {
      send({ status: 401, body: { message: 'Requires authentication', documentation_url: DOCS, status: '401' } });
      return;
    }
    if (this.opts.token !== undefined && auth[1] !== this.opts.token) {
      send({ status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } });
      return;
    }

    // routing and request validation
    const op = findOperation(method, url.pathname);
    if (!op) {
      this.violations.push(`${method} ${url.pathname}: no such operation in the trimmed GitHub OpenAPI description`);
      send({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });
      return;
    }
    const problems = checkRequest(op, { method, url, headers, rawBody, body, bodyIsJson });
    if (problems.length > 0) {
      violation(`${op.name}: request does not match the OpenAPI description: ${problems.join('; ')}`);
      return;
    }

    // a read-only token (contents: read): GitHub refuses every write with 403
    if (this.opts.readOnly && method !== 'GET' && method !== 'HEAD') {
      this.writeAttempts.push(record);
      send({ status: 403, body: { message: 'Resource not accessible by integration', documentation_url: DOCS, status: '403' } });
      return;
    }

    // fault injection
    const fault = this.faults.find(
      (f) =>
        f.remaining > 0 &&
        (!f.method || f.method.toUpperCase() === method) &&
        (typeof f.path === 'string' ? f.path === url.pathname || f.path === op.template : f.path.test(url.pathname)),
    );
    if (fault) {
      fault.remaining -= 1;
      if (fault.remaining === 0) this.faults.splice(this.faults.indexOf(fault), 1);
      const faultBody = fault.body ?? { message: STATUS_CODES[fault.status] ?? 'Error', documentation_url: DOCS };
      send(typeof faultBody === 'string' ? { status: fault.status, text: faultBody, headers: fault.headers } : { status: fault.status, body: faultBody, headers: fault.headers });
      return;
    }

    const reply = answer(this, op, url, body, headers);
    // response validation
    if (reply.text === undefined && !reply.unchecked) {
      const problem = checkResponse(op, reply.status, reply.body);
      if (problem) {
        violation(`${op.name}: response ${reply.status} does not match the OpenAPI description: ${problem}`);
        return;
      }
    }
    send(reply);
  }
}

/** Start a fake GitHub API on 127.0.0.1 (ephemeral port). Close it with `close()`. */
export async function startFakeGitHub(opts?: FakeGitHubOptions): Promise<FakeGitHub> {
  return new FakeGitHub(opts).listen();
}
