/**
 * A scripted OpenAI-compatible chat-completions server on loopback (node:http only).
 * Each POST /chat/completions consumes the next step of the script and answers in the
 * exact chat.completion shape (or as SSE chunks when `stream: true`). Used by the tests
 * and by the keyless `agent-fix demo`, so it ships in the bundle.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Script } from './script.js';
import { ScriptedEndpoint, type ScriptedModelOptions } from './endpoint.js';
import { sendError } from './replies.js';

export { requestTokens } from './endpoint.js';
export type { ScriptedModelOptions, EndpointLimits } from './endpoint.js';

export interface ScriptedModel {
  /** Base URL ending in `/v1`, usable as the openai SDK's `baseURL`. */
  readonly url: string;
  /** Parsed bodies of every chat-completions request, in order. */
  readonly requests: any[];
  /** Bearer key (or `api-key` header) of every chat-completions request; null when absent. */
  readonly receivedKeys: (string | null)[];
  /** Failed `expect`s and requests that arrived without credentials. */
  readonly mismatches: string[];
  /** True once a request arrived after the last step. */
  readonly exhausted: boolean;
  /** Number of steps consumed so far. */
  readonly consumed: number;
  /** Endpoint checks answered (requests with the `x-agent-fix-check` header; they consume no step and are not in `requests`). */
  readonly checks: number;
  /** Input tokens of every request that reached a step (`requests`), as the server counts them (see `requestTokens`). */
  readonly requestTokens: number[];
  /** Requests refused by a limit of `limits` (they consume no step and are not in `requests`): the status, why, and the request's tokens. */
  readonly refused: { status: number; why: string; tokens: number }[];
  /** Requests over the window that a dialect answering silently (ollama) cut to their last tokens: the request's tokens. */
  readonly truncated: number[];
  close(): Promise<void>;
}

/** `close()` of a scripted model that ran out of script: the test that used it fails with this. */
export class ScriptExhausted extends Error {
  constructor(label: string, steps: number, requests: number) {
    super(
      `scripted model "${label}" ran out of script: ${requests} request(s) for ${steps} step(s). The run needed more than the test scripted; ` +
        'add the missing steps, or pass { allowExhaustion: true } when running out is what the test checks.',
    );
    this.name = 'ScriptExhausted';
  }
}

export async function startScriptedModel(script: Script, opts: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const endpoint = new ScriptedEndpoint(script, opts);
  const { state, steps, label } = endpoint;
  const host = opts.host ?? '127.0.0.1';

  const server = createServer((req, res) => {
    endpoint.handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendError(res, 500, `scripted server failure: ${e instanceof Error ? e.message : String(e)}`);
      else res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | null = null;

  return {
    url: `http://${urlHost}:${port}/v1`,
    requests: state.requests,
    receivedKeys: state.receivedKeys,
    mismatches: state.mismatches,
    get exhausted() {
      return state.exhausted;
    },
    get consumed() {
      return state.next;
    },
    get checks() {
      return state.checks;
    },
    requestTokens: state.requestTokens,
    refused: state.refused,
    truncated: state.truncated,
    /** Stops the server; rejects with ScriptExhausted when a request came after the last step (unless allowed). */
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => {
        if (state.exhausted && !opts.allowExhaustion) throw new ScriptExhausted(label, steps.length, state.requests.length);
      });
      return closed;
    },
  };
}
