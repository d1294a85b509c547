// Whether a webhook body is the event its X-GitHub-Event header names. GitHub signs the body
// only, so whoever holds one signed delivery can send it again under another event name: a
// review's body as `pull_request` would rewrite the PR's record from a stale copy. Each consumed
// event is told apart by the objects only it carries (docs/connectors.md, GitHub).

interface Shape {
  /** Top-level objects the event always carries. */
  has: string[];
  /** Top-level keys that mark another event's body. */
  not: string[];
}

const SHAPES: Record<string, Shape> = {
  pull_request: { has: ['pull_request'], not: ['review', 'comment', 'issue'] },
  issues: { has: ['issue'], not: ['comment', 'pull_request', 'review'] },
  issue_comment: { has: ['issue', 'comment'], not: ['pull_request', 'review'] },
  pull_request_review: { has: ['review', 'pull_request'], not: ['comment', 'issue'] },
  pull_request_review_comment: { has: ['comment', 'pull_request'], not: ['review', 'issue'] },
  push: { has: [], not: ['action', 'pull_request', 'issue', 'comment', 'review'] },
};

const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why `payload` is not a body of `event`, or undefined when it is (or the event is not one Doco consumes). */
export function payloadMismatch(event: string, payload: Record<string, unknown>): string | undefined {
  const shape = SHAPES[event];
  if (!shape) return undefined;
  const missing = shape.has.filter((k) => !isObject(payload[k]));
  if (event === 'push') {
    const refs = ['ref', 'before', 'after'].filter((k) => typeof payload[k] !== 'string');
    if (refs.length || !Array.isArray(payload.commits)) missing.push(...refs, ...(Array.isArray(payload.commits) ? [] : ['commits']));
  }
  if (missing.length) return `the body is not a ${event} event: it has no ${missing.join(', ')}`;
  const foreign = shape.not.filter((k) => k in payload);
  if (foreign.length) return `the body is not a ${event} event: it has ${foreign.join(', ')}`;
  return undefined;
}
