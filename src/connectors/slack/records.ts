// A Slack thread as the record it becomes (docs/connectors.md): title = the root message's first line,
// prose = a header with the permalink, the root message, then its newest replies (bounded);
// body.source_kind = "slack" with the pointer {channel, ts, permalink}.
import { commentsSection, type ThreadComments } from '../comments.js';
import type { RecordShape } from '../../graph/record-shapes.js';
import type { ItemContent } from '../items.js';
import { threadId, tsToIso } from './messages.js';

const TITLE_CHARS = 120;

/** `https://acme.slack.com/` + `archives/C1/p1700000000000100`: how Slack links to a message. */
export const permalink = (teamUrl: string, channel: string, ts: string) =>
  `${teamUrl.replace(/\/*$/, '/')}archives/${channel}/p${ts.replace('.', '')}`;

function titleOf(text: string | undefined, channel: string): string {
  const line =
    (text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  if (!line) return `Slack thread in ${channel}`;
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

export function threadRecord(
  channel: string,
  threadTs: string,
  thread: ThreadComments,
  link: string,
  latestReply: string | undefined,
): ItemContent {
  const hidden = thread.replyCount - thread.replies.length;
  const prose = [
    `Slack thread in ${channel}, started ${tsToIso(threadTs)}: ${link}`,
    thread.root
      ? `${thread.root.author ? `@${thread.root.author}` : 'someone'}: ${thread.root.body}`
      : '(the first message of this thread is not available)',
    hidden > 0 ? `(${hidden} earlier ${hidden === 1 ? 'reply' : 'replies'} not shown)` : '',
    commentsSection(thread.replies, 'Replies'),
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    externalId: threadId(channel, threadTs),
    title: titleOf(thread.root?.body, channel),
    prose,
    body: {
      source_kind: 'slack',
      shape: 'slackThread' satisfies RecordShape,
      pointer: { channel, ts: threadTs, permalink: link },
      reply_count: thread.replyCount,
    },
    meta: { channel, thread_ts: threadTs, ...(latestReply ? { latest_reply: latestReply } : {}) },
  };
}
