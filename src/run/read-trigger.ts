/**
 * The event read once into a trigger (trigger/parse.ts). A bot sender the policy may allow
 * (triggers.allowed-bots; never agent-fix itself) is read as if allowed, and confirmed once the
 * policy is known: so a bot's event is still skipped before any API call when it would be
 * skipped anyway, and the payload is parsed only once.
 */
import type { Trigger } from '../trigger/types.js';
import { parseTrigger } from '../trigger/parse.js';
import { isBotLogin, SELF_LOGINS } from '../policy/authorize.js';

export interface ReadTrigger {
  trigger: Trigger;
  /** A bot sender read as allowed: the policy must list it (`confirmBot`). */
  bot?: string;
}

export function readTrigger(eventName: string, payload: Record<string, unknown>, o: { label: string; workflows?: string[] }): ReadTrigger {
  const sender = String((payload?.sender as { login?: unknown } | undefined)?.login ?? '');
  const bot = isBotLogin(sender) && !SELF_LOGINS.includes(sender.toLowerCase()) ? sender : undefined;
  const trigger = parseTrigger(eventName, payload, { label: o.label, workflows: o.workflows, ...(bot ? { allowedBots: [bot] } : {}) });
  return { trigger, ...(bot ? { bot } : {}) };
}

/** The trigger once the policy is known: a bot sender the policy does not list is skipped (the words of trigger/parse.ts). */
export function confirmBot(read: ReadTrigger, allowedBots: string[]): Trigger {
  if (!read.bot || read.trigger.kind === 'skip') return read.trigger;
  const bot = read.bot;
  if (allowedBots.some((b) => b.toLowerCase() === bot.toLowerCase())) return read.trigger;
  return { kind: 'skip', reason: `sender ${bot} is a bot; agent-fix ignores bots to avoid loops.` };
}
