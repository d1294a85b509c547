// Per-agent hook contracts (docs/agents.md): each agent's stdin JSON, read into one
// neutral shape, and the stdout JSON it accepts back. Unknown fields are kept out of the way
// (agents add fields over time), missing required ones are a 400.
import path from 'node:path';
import * as v from 'valibot';
import { AppError } from '../errors.js';
import { parseInput } from '../lib/validate.js';
import { MAX_DELETED_PATH_CHARS, MAX_DELETED_PATHS } from './deleted-limits.js';
import { codeTerms, editLines } from './edit-code.js';
import { cutText, wellFormed } from '../lib/well-formed.js';

export const AGENTS = ['claude-code', 'codex', 'gemini'] as const;
export const EVENTS = ['session-start', 'prompt', 'edit'] as const;
export type Agent = (typeof AGENTS)[number];
export type HookEvent = (typeof EVENTS)[number];

/** The agent's own name for each event: what `hookSpecificOutput.hookEventName` must say. */
const EVENT_NAMES: Record<Agent, Record<HookEvent, string>> = {
  'claude-code': { 'session-start': 'SessionStart', prompt: 'UserPromptSubmit', edit: 'PreToolUse' },
  codex: { 'session-start': 'SessionStart', prompt: 'UserPromptSubmit', edit: 'PreToolUse' },
  gemini: { 'session-start': 'SessionStart', prompt: 'BeforeAgent', edit: 'AfterTool' },
};

export function parseRoute(agent: string, event: string): { agent: Agent; event: HookEvent } {
  if (!(AGENTS as readonly string[]).includes(agent))
    throw new AppError('not_found', `no hooks for agent ${JSON.stringify(agent)}; use one of ${AGENTS.join(', ')}`);
  if (!(EVENTS as readonly string[]).includes(event))
    throw new AppError('not_found', `no hook event ${JSON.stringify(event)}; use one of ${EVENTS.join(', ')}`);
  return { agent: agent as Agent, event: event as HookEvent };
}

export interface HookOutput {
  hookSpecificOutput?: { hookEventName: string; additionalContext: string };
}

/** The stdout JSON: `{}` when there is nothing to add. Never a permission decision. */
export function hookOutput(agent: Agent, event: HookEvent, context: string): HookOutput {
  if (!context.trim()) return {};
  // Well-formed: the agent's CLI parses this JSON, and its model API refuses a lone surrogate.
  return { hookSpecificOutput: { hookEventName: EVENT_NAMES[agent][event], additionalContext: wellFormed(context) } };
}

const Text = v.string();
const Common = {
  session_id: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)),
  cwd: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(4096)),
  transcript_path: v.optional(v.nullable(Text)),
  hook_event_name: v.optional(Text),
  /** Added by `doco hook`: the repository (git common dir) and branch, so worktrees and subfolders of one checkout share it. */
  doco_checkout: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
  /**
   * Added by `doco hook`: files the checkout deleted (git says so), relative to `cwd`, found in the
   * checkout (deleted-files.ts). Records naming them are marked possibly stale; the server never
   * looks at the checkout itself.
   */
  doco_deleted: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(MAX_DELETED_PATH_CHARS))),
      v.maxLength(MAX_DELETED_PATHS, `must list at most ${MAX_DELETED_PATHS} paths`),
    ),
  ),
};
const SessionStartSchema = v.looseObject({ ...Common, source: v.optional(Text) });
const PromptSchema = v.looseObject({ ...Common, prompt: Text });
const EditSchema = v.looseObject({ ...Common, tool_name: v.pipe(v.string(), v.minLength(1)), tool_input: v.looseObject({}) });

export interface HookInput {
  sessionId: string;
  cwd: string;
  /** What "this checkout" means for session memory: the repository and branch when known, else the cwd. */
  checkout: string;
  /** Files the checkout deleted, as `doco hook` found them there (relative to cwd); empty when it did not say. */
  deleted: string[];
  /** session-start: startup, resume, clear or compact (agents may omit it). */
  source?: string;
  /** prompt: the prompt text. */
  prompt?: string;
  /** edit: the edited paths, relative to cwd where they lie inside it, and a one-line summary. */
  paths?: string[];
  editSummary?: string;
  /** edit: the distinctive identifiers of the code it writes (edit-code.ts), most telling first. */
  codeTerms?: string[];
}

const clip = (s: string, n: number) => (s.length > n ? `${cutText(s, n - 1)}…` : s);
const firstLine = (s: unknown) => (typeof s === 'string' ? (s.split('\n').find((l) => l.trim()) ?? '').trim() : '');

/** A path as the brief's `touching` wants it: relative to the checkout when inside it. */
export function relativeTo(cwd: string, p: string): string {
  if (!path.isAbsolute(p)) return path.normalize(p).split(path.sep).join('/');
  const rel = path.relative(cwd, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : p;
}

/** The most paths an edit brief reads (an apply_patch may name any number of files). */
export const EDIT_PATHS = 100;

/**
 * The first EDIT_PATHS files an apply_patch text adds, updates or deletes (and the target of a
 * move). A Set and the bound: a patch naming 150,000 files (3 MB) held the server 55 s when each
 * path was looked for in the list so far (a hostile review).
 */
export function patchPaths(patch: string): { paths: string[]; firstAdded: string } {
  const paths = new Set<string>();
  let firstAdded = '';
  for (const line of patch.split(/\r?\n/)) {
    const m = line.match(/^\*\*\* (?:Update|Add|Delete) File: (.+)$/) ?? line.match(/^\*\*\* Move to: (.+)$/);
    if (m) {
      const p = m[1]!.trim();
      if (p && paths.size < EDIT_PATHS) paths.add(p);
      if (paths.size >= EDIT_PATHS && firstAdded) break;
    } else if (!firstAdded && line.startsWith('+') && !line.startsWith('+++') && line.slice(1).trim()) {
      firstAdded = line.slice(1).trim();
    }
  }
  return { paths: [...paths], firstAdded };
}

/** The new text of an edit, whichever tool made it: its first non-blank line. */
function newText(input: Record<string, unknown>): string {
  const edits = Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [];
  return firstLine(input.new_string) || firstLine(input.content) || firstLine(input.new_source) || firstLine(edits[0]?.new_string);
}

const HOOK_CONTEXT_OPEN = '<hook_context>';
const HOOK_CONTEXT_CLOSE = '</hook_context>';

/**
 * The prompt without context a hook added to it: headless Gemini puts the SessionStart answer in
 * front of the prompt as `<hook_context>…</hook_context>`, and a brief "about" our own standing
 * orders would report "hook context" and "obey rule" as gaps.
 */
export function withoutHookContext(prompt: string): string {
  // A scan, not a lazy regex: one looked for a closing tag from every opening one, so a prompt of
  // opening tags alone (a read token's to send, up to the 4 MiB a body may be) took time
  // quadratic in it: 17 s for 1 MiB, the whole server waiting.
  let out = '';
  let from = 0;
  for (;;) {
    const open = prompt.indexOf(HOOK_CONTEXT_OPEN, from);
    if (open < 0) break;
    const close = prompt.indexOf(HOOK_CONTEXT_CLOSE, open + HOOK_CONTEXT_OPEN.length);
    // No closing tag after this one: none after any later one either; the rest is prompt.
    if (close < 0) break;
    out += `${prompt.slice(from, open)} `;
    from = close + HOOK_CONTEXT_CLOSE.length;
  }
  return `${out}${prompt.slice(from)}`.replace(/\s+/g, ' ').trim();
}

export function parseHookInput(agent: Agent, event: HookEvent, raw: unknown): HookInput {
  const what = `${agent} ${event} hook input`;
  if (event === 'session-start') {
    const b = parseInput(SessionStartSchema, raw, what);
    return {
      sessionId: b.session_id,
      cwd: b.cwd,
      checkout: b.doco_checkout ?? b.cwd,
      deleted: b.doco_deleted ?? [],
      ...(b.source === undefined ? {} : { source: b.source }),
    };
  }
  if (event === 'prompt') {
    const b = parseInput(PromptSchema, raw, what);
    return {
      sessionId: b.session_id,
      cwd: b.cwd,
      checkout: b.doco_checkout ?? b.cwd,
      deleted: b.doco_deleted ?? [],
      prompt: withoutHookContext(b.prompt),
    };
  }
  const b = parseInput(EditSchema, raw, what);
  const input = b.tool_input as Record<string, unknown>;
  const named = [input.file_path, input.notebook_path, input.path].find((p): p is string => typeof p === 'string' && p.trim() !== '');
  let paths: string[];
  let added = newText(input);
  if (named) paths = [named];
  else if (agent === 'codex' && typeof input.command === 'string') {
    const patch = patchPaths(input.command);
    paths = patch.paths;
    added ||= patch.firstAdded;
  } else {
    const wants = agent === 'codex' ? 'tool_input.command (the apply_patch text) or tool_input.file_path' : 'tool_input.file_path';
    throw new AppError('validation_failed', `${what} is invalid: ${wants} is missing`, {
      issues: [{ path: 'tool_input', message: `${wants} is missing` }],
    });
  }
  const rel = paths.map((p) => relativeTo(b.cwd, p));
  const summary = clip(`${b.tool_name} ${rel.join(', ')}${added ? `: ${added}` : ''}`, 300);
  return {
    sessionId: b.session_id,
    cwd: b.cwd,
    checkout: b.doco_checkout ?? b.cwd,
    deleted: b.doco_deleted ?? [],
    paths: rel.slice(0, EDIT_PATHS),
    editSummary: summary,
    codeTerms: codeTerms(rel[0], editLines(input)),
  };
}
