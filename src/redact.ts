/**
 * Removes secrets from text before it is shown to the model or published (comments, PR
 * bodies, logs, transcripts).
 *
 * Each secret (4 characters or more) is replaced by `***` together with its common
 * encodings: URL-encoding (upper and lower case hex), JSON string escaping, hex of its
 * UTF-8 bytes (both cases), base64 and base64url of the secret, of `x-access-token:<secret>`
 * (git's HTTP basic auth for GitHub tokens), and the part of the base64 text that is fixed
 * by the secret alone whatever precedes it (so `<any user>:<secret>` inside an
 * `Authorization: Basic ...` header is caught too, minus a character or two at its edges).
 *
 * All forms of all secrets are matched by one regular expression of escaped literals
 * (longest first), so a multi-MB text is scanned once, with no backtracking hazards.
 */

/**
 * Variable names that look like they hold a secret. AUTH matches AUTHORIZATION, OAUTH and
 * _auth, but not AUTHOR / AUTHORS (GIT_AUTHOR_NAME is not a secret; redacting its value
 * everywhere would mangle logs).
 */
export const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|API[_-]?KEY|PRIVATE|CREDENTIAL|AUTH(?!ORS?(?:_|$))/i;

const MIN_SECRET = 4;
/** Shortest base64 fragment worth matching (shorter ones would hit innocent text). */
const MIN_FRAGMENT = 6;
const MASK = '***';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function base64url(b64: string): string {
  return b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The base64 characters determined by `bytes` alone when they are preceded by `offset`
 * unknown bytes (0, 1 or 2) and followed by anything.
 */
function base64Fragment(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
  const start = Math.ceil((offset * 8) / 6);
  const end = Math.floor(((offset + bytes.length) * 8) / 6);
  return encoded.slice(start, end);
}

/** Every form of one secret that should disappear from text. */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  const uri = encodeURIComponent(secret);
  forms.add(uri);
  forms.add(uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  forms.add(JSON.stringify(secret).slice(1, -1));
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  const b64s = [bytes.toString('base64'), Buffer.from(`x-access-token:${secret}`, 'utf8').toString('base64')];
  for (const b64 of b64s) {
    forms.add(b64);
    forms.add(base64url(b64));
  }
  for (let offset = 0; offset < 3; offset++) {
    const fragment = base64Fragment(bytes, offset);
    if (fragment.length >= MIN_FRAGMENT) {
      forms.add(fragment);
      forms.add(base64url(fragment));
    }
  }
  return [...forms].filter((f) => f.length >= MIN_SECRET);
}

export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | null = null;
  private dirty = false;

  constructor(secrets?: Iterable<string>) {
    for (const secret of secrets ?? []) this.add(secret);
  }

  /** Registers a secret; empty or shorter than 4 characters is ignored. */
  add(secret: string): void {
    if (typeof secret !== 'string') return;
    const value = secret.trim() === secret ? secret : secret.trim();
    for (const candidate of new Set([secret, value])) {
      if (candidate.length < MIN_SECRET || this.secrets.has(candidate)) continue;
      this.secrets.add(candidate);
      this.dirty = true;
    }
  }

  /** Number of secrets registered (not counting their encoded forms). */
  get size(): number {
    return this.secrets.size;
  }

  redact(text: string): string {
    if (this.secrets.size === 0 || !text) return text;
    const pattern = this.compile();
    pattern.lastIndex = 0;
    return text.replace(pattern, MASK);
  }

  private compile(): RegExp {
    if (this.pattern && !this.dirty) return this.pattern;
    const forms = new Set<string>();
    for (const secret of this.secrets) for (const form of secretForms(secret)) forms.add(form);
    const sorted = [...forms].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    this.pattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
    this.dirty = false;
    return this.pattern;
  }
}

/** `INPUT_GITHUB-TOKEN`, `INPUT_API-KEY` and the like are matched by SECRET_NAME too. */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string' || value.length < 8) continue;
    if (SECRET_NAME.test(name)) found.add(value);
  }
  return [...found];
}
