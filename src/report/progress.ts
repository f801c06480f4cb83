/**
 * The live checklist of a run (pure): progress events folded into a list of phases, rendered as
 * markdown for the sticky comment while the run works. Details are escaped like all outside text.
 */
import { phaseTitle, samePhase, type Phase, type PhaseState, type ProgressEvent } from '../fix/progress.js';
import { escapeMarkdown, formatDuration } from './render.js';

export interface PhaseLine {
  phase: Phase;
  state: PhaseState;
  detail?: string;
  startedAt: number;
  endedAt?: number;
}

export interface Checklist {
  phases: PhaseLine[];
  /** Tool calls of the model so far. */
  toolCalls: number;
}

export const EMPTY_CHECKLIST: Checklist = { phases: [], toolCalls: 0 };

/** The checklist after one event, at time `now` (ms). A new value; the old one is left as it was. */
export function applyProgress(list: Checklist, e: ProgressEvent, now: number): Checklist {
  if (e.type === 'tool') return { ...list, toolCalls: list.toolCalls + 1 };
  if (e.type !== 'phase') return list;
  const i = list.phases.findIndex((p) => samePhase(p.phase, e.phase));
  const phases = [...list.phases];
  if (e.state === 'running') {
    const line: PhaseLine = { phase: e.phase, state: 'running', detail: e.detail, startedAt: now };
    if (i >= 0) phases[i] = line;
    else phases.push(line);
  } else if (i >= 0) {
    phases[i] = { ...phases[i], state: e.state, detail: e.detail ?? phases[i].detail, endedAt: now };
  } else {
    phases.push({ phase: e.phase, state: e.state, detail: e.detail, startedAt: now, endedAt: now });
  }
  return { ...list, phases };
}

const MARK: Record<PhaseState, string> = { running: '⏳', done: '✅', failed: '❌', skipped: '➖' };

/** What is still to come, shown greyed so the reader sees the whole shape of a run. */
const AHEAD: Phase['kind'][] = ['model', 'setup', 'baseline', 'attempt', 'publish'];

/** The checklist as markdown lines (no task-list checkboxes: a reader's click would edit the bot's comment). */
export function renderChecklist(list: Checklist, now: number): string {
  const lines = list.phases.map((p) => {
    const took = p.endedAt !== undefined ? ` (${formatDuration(p.endedAt - p.startedAt)})` : p.state === 'running' ? ` (running for ${formatDuration(now - p.startedAt)})` : '';
    const detail = p.detail ? `: ${escapeMarkdown(oneLine(p.detail))}` : '';
    const title = p.state === 'running' ? `**${phaseTitle(p.phase)}**` : phaseTitle(p.phase);
    return `- ${MARK[p.state]} ${title}${detail}${took}`;
  });
  const last = list.phases[list.phases.length - 1];
  const at = last ? AHEAD.indexOf(last.phase.kind) : -1;
  for (const kind of AHEAD.slice(at + 1)) {
    if (kind === 'model' || kind === 'setup') continue;
    lines.push(`- ⬜ ${kind === 'attempt' ? 'Attempts (the model edits, the harness verifies)' : phaseTitle({ kind } as Phase)}`);
  }
  if (list.toolCalls > 0) lines.push('', `_${list.toolCalls} tool call(s) by the model so far._`);
  return lines.join('\n');
}

function oneLine(s: string, max = 200): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}
