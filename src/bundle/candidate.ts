/**
 * Candidate variation: the input `candidate` (e.g. `${{ matrix.candidate }}`) makes each
 * matrix cell ask the model for a different sample, deterministically (a re-run of the same
 * cell asks for the same one):
 *
 * - `seed`: FNV-1a (32 bit) of the candidate id, masked to 31 bits. The OpenAI API and most
 *   compatible servers (vLLM, Ollama) take it as a best-effort reproducibility hint; GitHub
 *   Models and Azure pass it through; a server that rejects it gets the request again without.
 * - `temperature`: a ladder by the candidate's position: ids 1, 2, 3, 4, 5 (or any id whose
 *   number is that modulo 5) get 0.2, 0.4, 0.6, 0.8, 1.0; a non-numeric id gets the rung of its
 *   hash. Candidate 1 is the most conservative, so `candidate: [1]` is close to `mode: run`.
 *   A model that only accepts its default temperature (reasoning models) gets the request
 *   again without it (adapters/openai.ts).
 * - No candidate (empty): neither is sent, exactly as before.
 */

export interface Sampling {
  seed?: number;
  temperature?: number;
}

export const TEMPERATURE_LADDER = [0.2, 0.4, 0.6, 0.8, 1.0] as const;

/** 32-bit FNV-1a of the UTF-8 bytes of `text`. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function candidateSampling(id: string | undefined | null): Sampling {
  const c = (id ?? '').trim();
  if (!c) return {};
  const seed = fnv1a(`agent-fix candidate ${c}`) & 0x7fffffff;
  const n = /^\d{1,9}$/.test(c) ? Number(c) : null;
  const rung = n !== null && n > 0 ? (n - 1) % TEMPERATURE_LADDER.length : fnv1a(c) % TEMPERATURE_LADDER.length;
  return { seed, temperature: TEMPERATURE_LADDER[rung] };
}
