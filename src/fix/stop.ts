/** How a phase ends the fix early: the outcome it names, as a value (fix.ts makes the report of it). */
import type { Reason } from '../agent/types.js';
import type { Outcome } from './types.js';

export interface Stop {
  stop: { status: Outcome; reason: Reason; detail: string };
}

export function stop(status: Outcome, reason: Reason, detail: string): Stop {
  return { stop: { status, reason, detail } };
}

export function isStop<T extends object>(v: T | Stop): v is Stop {
  return 'stop' in v;
}

export function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(-max)}`;
}
