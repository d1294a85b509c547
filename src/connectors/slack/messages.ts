// What a Slack message event (or a message read back by the sync) means for its thread
// (docs/connectors.md, Slack): keep a message (a new one, an edit: same ts), take a reply out, retire a
// thread whose root was deleted, or skip it — bot messages and channel noise (joins, leaves,
// topic changes, "replied" notices) never reach the graph. A thread is `channel:thread_ts`.
import type { SlackMessage } from './client.js';

export type MessageAction =
  /** `changedTs`: when the message last changed (its `edited.ts`, else its `ts`). */
  | { op: 'keep'; channel: string; threadTs: string; ts: string; changedTs: string; user: string; text: string }
  /** `deletedTs`: when it was deleted (the deletion event's own `ts`), when the event says. */
  | { op: 'drop'; channel: string; threadTs: string; ts: string; deletedTs?: string }
  | { op: 'retire'; channel: string; threadTs: string }
  | { op: 'skip'; reason: string };

/** Subtypes that are a person's message; thread_broadcast is a reply also shown in the channel (kept once). */
const KEPT_SUBTYPES = new Set(['file_share', 'me_message', 'thread_broadcast']);

export const threadId = (channel: string, threadTs: string) => `${channel}:${threadTs}`;

/** A Slack ts ("1700000000.000100", seconds) as an ISO time. */
export const tsToIso = (ts: string) => new Date(Math.floor(Number(ts) * 1000)).toISOString();

/** A ts as a Postgres timestamptz, to the microsecond (ts is seconds with six decimals). */
export const tsToTimestamp = (ts: string) => {
  const [seconds = '0', fraction = ''] = ts.split('.');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction.padEnd(6, '0').slice(0, 6)}Z`;
};

/** The ts of a moment, for `oldest=`. */
export const isoToTs = (ms: number) => (ms / 1000).toFixed(6);

/** Later of two ts strings (they compare as numbers). */
export const laterTs = (a: string | undefined, b: string) => (!a || Number(b) > Number(a) ? b : a);

const isTs = (v: unknown): v is string => typeof v === 'string' && /^\d{1,12}\.\d{1,9}$/.test(v);

interface MessageLike extends SlackMessage {
  files?: { name?: string; title?: string }[];
}

/** Why a message is not a person's words, or undefined when it is one. */
export function noiseReason(m: MessageLike): string | undefined {
  if (m.bot_id || m.subtype === 'bot_message') return 'a bot message';
  if (m.subtype && !KEPT_SUBTYPES.has(m.subtype)) return `a ${m.subtype} message`;
  return undefined;
}

/** Slack mrkdwn as plain text: links, mentions and channel references spelled out, entities decoded. */
export function plainText(text: string): string {
  return text
    .replace(/<([^<>|]+)\|([^<>]+)>/g, (_, target: string, label: string) => spelled(target, label))
    .replace(/<([^<>]+)>/g, (_, target: string) => spelled(target, undefined))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function spelled(target: string, label: string | undefined): string {
  if (target.startsWith('@')) return `@${label ?? target.slice(1)}`;
  if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
  if (target.startsWith('!')) return `@${(label ?? target.slice(1)).replace(/^subteam\^/, '')}`;
  return label && label !== target ? `${label} (${target})` : target;
}

/** A message's words; a file shared without a comment is named instead. */
function wordsOf(m: MessageLike): string {
  const text = plainText(m.text ?? '').trim();
  if (text) return text;
  const files = (m.files ?? []).map((f) => f.title || f.name).filter(Boolean);
  return files.length ? `(shared ${files.join(', ')})` : '';
}

/** A message as the sync reads it (history or replies) → what to keep. */
export function messageAction(channel: string, m: MessageLike): MessageAction {
  const noise = noiseReason(m);
  if (noise) return { op: 'skip', reason: noise };
  if (!isTs(m.ts)) return { op: 'skip', reason: 'a message without a ts' };
  return {
    op: 'keep',
    channel,
    threadTs: isTs(m.thread_ts) ? m.thread_ts : m.ts,
    ts: m.ts,
    changedTs: isTs(m.edited?.ts) ? m.edited.ts : m.ts,
    user: m.user ?? '',
    text: wordsOf(m),
  };
}

interface MessageEvent extends MessageLike {
  channel?: string;
  channel_type?: string;
  message?: MessageLike;
  previous_message?: MessageLike;
  deleted_ts?: string;
}

/** A `message` event of the Events API → what to do with its thread. */
export function eventAction(raw: unknown): MessageAction {
  const e = (raw ?? {}) as MessageEvent;
  if (e.type !== 'message') return { op: 'skip', reason: `a ${String(e.type)} event` };
  const channel = typeof e.channel === 'string' && e.channel ? e.channel : undefined;
  if (!channel) return { op: 'skip', reason: 'an event without a channel' };
  if (e.subtype === 'message_changed') {
    const m = e.message;
    if (!m) return { op: 'skip', reason: 'a change without its message' };
    // A root deleted while it has replies stays as a tombstone: the thread is gone all the same.
    if (m.subtype === 'tombstone' && isTs(m.ts)) return { op: 'retire', channel, threadTs: m.ts };
    return messageAction(channel, m);
  }
  if (e.subtype === 'message_deleted') {
    const ts = isTs(e.deleted_ts) ? e.deleted_ts : e.previous_message?.ts;
    if (!isTs(ts)) return { op: 'skip', reason: 'a deletion without a ts' };
    const parent = e.previous_message?.thread_ts;
    if (!isTs(parent) || parent === ts) return { op: 'retire', channel, threadTs: ts };
    return { op: 'drop', channel, threadTs: parent, ts, ...(isTs(e.ts) ? { deletedTs: e.ts } : {}) };
  }
  return messageAction(channel, e);
}
