/**
 * What a reply's text holds besides prose, read the way the endpoints write it. Pure.
 *
 * - Tool calls written as text by servers without a tool parser (Ollama, vLLM, LM Studio, open
 *   models): Hermes/Qwen `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, Mistral
 *   `[TOOL_CALLS][{...}]` or `[TOOL_CALLS]name[ARGS]{...}`, Llama `<function=name>{...}</function>`,
 *   and a bare JSON call (or a list of them) as the whole reply. A call counts only when it names
 *   one of our tools with an arguments object that has the schema's required properties.
 * - Reasoning left in the content (`<think>…</think>` of R1-style models), which is not sent back.
 * - Tool-call arguments cut off at the token limit, closed where that gives valid JSON.
 */
import type { ToolSpec } from '../ports/llm.js';

export interface TextCall {
  name: string;
  /** JSON text of the arguments object. */
  arguments: string;
}

export interface TextCalls {
  calls: TextCall[];
  /** The text around the calls. */
  rest: string;
  /** Which writing the calls were in. */
  format: 'hermes' | 'mistral' | 'llama' | 'json';
}

/** The tool calls written in `content`, validated against `tools`; null when it holds none. */
export function parseTextCalls(content: string, tools: readonly ToolSpec[]): TextCalls | null {
  const known = new Map(tools.map((t) => [t.name, t]));
  const valid = (name: unknown, args: unknown): TextCall | null => {
    if (typeof name !== 'string' || !known.has(name)) return null;
    let v = args;
    if (typeof v === 'string') {
      try {
        v = JSON.parse(v);
      } catch {
        return null;
      }
    }
    if (v === undefined || v === null) v = {};
    if (typeof v !== 'object' || Array.isArray(v)) return null;
    const required = (known.get(name)!.parameters as { required?: unknown }).required;
    if (Array.isArray(required) && required.some((k) => typeof k === 'string' && !(k in (v as object)))) return null;
    return { name, arguments: JSON.stringify(v) };
  };
  const fromObject = (o: unknown): TextCall | null => {
    if (!o || typeof o !== 'object') return null;
    const x = o as { name?: unknown; arguments?: unknown; parameters?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (x.function && typeof x.function === 'object') return valid(x.function.name, x.function.arguments);
    return valid(x.name, x.arguments ?? x.parameters);
  };
  const all = (found: (TextCall | null)[]): TextCall[] | null => (found.length && found.every((c) => c !== null) ? (found as TextCall[]) : null);

  // Hermes / Qwen
  const hermes = [...content.matchAll(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g)];
  if (hermes.length) {
    const calls = all(hermes.map((m) => fromObject(parseJson(m[1]))));
    if (calls) return { calls, rest: content.replace(/<tool_call>[\s\S]*?<\/tool_call>/g, '').trim(), format: 'hermes' };
  }
  // Llama 3.x
  const llama = [...content.matchAll(/<function=([\w.-]+)>\s*([\s\S]*?)\s*<\/function>/g)];
  if (llama.length) {
    const calls = all(llama.map((m) => valid(m[1], parseJson(m[2]) ?? undefined)));
    if (calls) return { calls, rest: content.replace(/<function=[\w.-]+>[\s\S]*?<\/function>/g, '').trim(), format: 'llama' };
  }
  // Mistral
  const at = content.indexOf('[TOOL_CALLS]');
  if (at >= 0) {
    const after = content.slice(at + '[TOOL_CALLS]'.length).trim();
    const list = parseJson(after);
    let calls: TextCall[] | null = null;
    if (Array.isArray(list)) calls = all(list.map(fromObject));
    else if (list && typeof list === 'object') calls = all([fromObject(list)]);
    else {
      // the v11 writing: name[ARGS]{...}, possibly several
      const parts = [...after.matchAll(/([\w.-]+)\[ARGS\]\s*(\{[\s\S]*?\})(?=\s*(?:\[TOOL_CALLS\]|$|[\w.-]+\[ARGS\]))/g)];
      calls = all(parts.map((m) => valid(m[1], parseJson(m[2]) ?? undefined)));
    }
    if (calls) return { calls, rest: content.slice(0, at).trim(), format: 'mistral' };
  }
  // bare JSON: the whole reply (in a code fence or not) is a call or a list of calls
  const bare = content.trim().replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/, '$1').trim();
  if (bare.startsWith('{') || bare.startsWith('[')) {
    const v = parseJson(bare);
    const calls = Array.isArray(v) ? all(v.map(fromObject)) : v ? all([fromObject(v)]) : null;
    if (calls) return { calls, rest: '', format: 'json' };
  }
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** `content` without the model's reasoning (`<think>…</think>`, or everything before a lone `</think>`); null stays null. */
export function stripThinking(content: string | null): string | null {
  if (content === null) return null;
  if (!/<\/?think>/i.test(content)) return content;
  let out = content.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const close = out.search(/<\/think>/i);
  if (close >= 0) out = out.slice(close + '</think>'.length);
  // an opening tag never closed: the reply was cut while thinking
  out = out.replace(/<think>[\s\S]*$/i, '');
  return out.trim();
}

/**
 * Arguments as valid JSON for the history: as they are when they parse; closed (an open string,
 * then open arrays and objects) when they were cut off; else `{}`. `changed` says whether they were touched.
 */
export function repairArguments(raw: string): { text: string; changed: boolean } {
  if (parseJson(raw) !== null || raw.trim() === 'null') return { text: raw, changed: false };
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  for (const ch of raw) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if ((ch === '}' || ch === ']') && stack[stack.length - 1] === ch) stack.pop();
  }
  let closed = raw.replace(/\\$/, '');
  if (inString) closed += '"';
  closed = closed.replace(/[,:]\s*$/, '');
  closed += stack.reverse().join('');
  const v = parseJson(closed);
  if (v && typeof v === 'object' && !Array.isArray(v)) return { text: closed, changed: true };
  return { text: '{}', changed: true };
}

const ID_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A tool-call id every endpoint accepts (Mistral's rule is the narrowest: 9 letters or digits), derived from `seed`. */
export function callId(seed: string): string {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619) >>> 0;
  let out = '';
  let x = h;
  for (let i = 0; i < 9; i++) {
    out += ID_CHARS[x % ID_CHARS.length];
    x = Math.imul(x ^ (x >>> 13), 2654435761) >>> 0;
    if (x === 0) x = 0x9e3779b9 + i;
  }
  return out;
}
