/** The JSON transcript: every model request/response, tool call and command run, redacted on write. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TranscriptEntry {
  at: string;
  event: unknown;
}

export class Transcript {
  readonly entries: TranscriptEntry[] = [];
  constructor(private readonly meta: Record<string, unknown>) {}

  add = (event: unknown): void => {
    this.entries.push({ at: new Date().toISOString(), event });
  };

  /** Records an error and writes what there is; never throws (the error itself is what matters). */
  writeAfterError(file: string, redact: (text: string) => string, message: string): void {
    this.add({ type: 'error', message });
    try {
      this.write(file, redact);
    } catch {
      /* nothing more to save */
    }
  }

  /** Writes the transcript; every string in it passes through `redact` first. */
  write(file: string, redact: (text: string) => string, result?: unknown): string {
    mkdirSync(path.dirname(file), { recursive: true });
    const json = JSON.stringify({ meta: this.meta, result, entries: this.entries }, null, 2);
    writeFileSync(file, redact(json));
    return file;
  }
}
