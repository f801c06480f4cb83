/**
 * Token counts from a real tokenizer (o200k_base, the encoding of the GPT-4o / o-series
 * family, via gpt-tokenizer: pure JavaScript, bundled). Other model families tokenize
 * differently, but within a few percent on code and English; a budget counted here is a
 * far better guide than characters divided by a constant.
 */
import { countTokens as count, encode as encodeWith, decode } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Text as the API counts a message's content: a special token's spelling (`<|endoftext|>`, common
 * in repositories about models) is plain text, never a special token, and never an error.
 */
const PLAIN = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };
const encode = (text: string) => encodeWith(text, PLAIN);

export function countTokens(text: string): number {
  if (!text) return 0;
  return count(text, PLAIN);
}

/** The tokens of a chat request's tool schemas as the API receives them (JSON). */
export function countJsonTokens(value: unknown): number {
  return countTokens(JSON.stringify(value));
}

/** The longest prefix of `text` within `maxTokens` tokens, cut at a line end when one is near. */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const tokens = encode(text);
  if (tokens.length <= maxTokens) return text;
  const cut = decode(tokens.slice(0, maxTokens));
  const nl = cut.lastIndexOf('\n');
  return nl > cut.length * 0.6 ? cut.slice(0, nl) : cut;
}
