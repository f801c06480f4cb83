/** The scripted server's answers on the wire: a step's reply as chat.completion JSON or SSE chunks, errors, and reading a request. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stepKind, type Step } from './script.js';

export type Json = Record<string, unknown>;

// ---------------------------------------------------------------- reply building

interface Reply {
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export function buildReply(step: Step, index: number, messages: unknown[], promptTokens?: number): Reply {
  const toolCalls = (step.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${index}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
  const kind = stepKind(step);
  const content = kind === 'filtered' ? '' : (step.content ?? null);
  const finishReason = kind === 'filtered' ? 'content_filter' : kind === 'truncated' ? 'length' : toolCalls.length ? 'tool_calls' : 'stop';
  const promptChars = messages.reduce<number>((n, m) => n + messageText(m).length, 0);
  const replyChars = (content ?? '').length + toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const prompt = step.usage?.promptTokens ?? promptTokens ?? Math.ceil(promptChars / 4);
  const completion = step.usage?.completionTokens ?? Math.ceil(replyChars / 4);
  return {
    content,
    toolCalls,
    finishReason,
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export function completionJson(model: string, seq: number, reply: Reply): Json {
  const message: Json = { role: 'assistant', content: reply.content, refusal: null };
  if (reply.toolCalls.length) {
    message.tool_calls = reply.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: `chatcmpl-scripted-${seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: reply.usage,
  };
}

export function sendStream(res: ServerResponse, model: string, seq: number, reply: Reply, includeUsage: boolean): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const base = { id: `chatcmpl-scripted-${seq}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const send = (choices: unknown[], extra: Json = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
  const delta = (d: Json, finish: string | null = null) => send([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  delta({ role: 'assistant', content: '' });
  for (const piece of pieces(reply.content ?? '', 16)) delta({ content: piece });
  reply.toolCalls.forEach((c, i) => {
    delta({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
    for (const piece of pieces(c.arguments, 24)) delta({ tool_calls: [{ index: i, function: { arguments: piece } }] });
  });
  delta({}, reply.finishReason);
  if (includeUsage) send([], { usage: reply.usage });
  res.end('data: [DONE]\n\n');
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// ---------------------------------------------------------------- helpers

export function messageText(m: unknown): string {
  if (!m || typeof m !== 'object') return '';
  const msg = m as { content?: unknown; tool_calls?: unknown };
  let text = '';
  if (typeof msg.content === 'string') text = msg.content;
  else if (Array.isArray(msg.content)) {
    text = msg.content.map((p) => (p && typeof p === 'object' && typeof p.text === 'string' ? p.text : '')).join('');
  }
  if (Array.isArray(msg.tool_calls)) text += JSON.stringify(msg.tool_calls);
  return text;
}

export function bearerKey(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    return m ? m[1] : auth.trim() || null;
  }
  const apiKey = req.headers['api-key'];
  return typeof apiKey === 'string' && apiKey ? apiKey : null;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, message: string, code: string | null = null): void {
  sendJson(res, status, defaultErrorBody(status, message, code));
}

const DEFAULT_MESSAGES: Record<number, [string, string]> = {
  400: ['Bad request (scripted)', 'invalid_request_error'],
  401: ['Incorrect API key provided (scripted)', 'invalid_request_error'],
  403: ['Permission denied (scripted)', 'permission_error'],
  404: ['The model does not exist or you do not have access to it (scripted)', 'invalid_request_error'],
  429: ['Rate limit reached (scripted)', 'rate_limit_error'],
};

export function defaultMessage(status: number): string {
  return (DEFAULT_MESSAGES[status] ?? [status >= 500 ? 'The server had an error while processing your request (scripted)' : `HTTP ${status} (scripted)`])[0];
}

export function defaultErrorBody(status: number, message?: string, code: string | null = null): Json {
  const [defMessage, type] = DEFAULT_MESSAGES[status] ?? [
    status >= 500 ? 'The server had an error while processing your request (scripted)' : `HTTP ${status} (scripted)`,
    status >= 500 ? 'server_error' : 'invalid_request_error',
  ];
  return { error: { message: message ?? defMessage, type, param: null, code } };
}
