// At most CONNECTOR_PER_SOURCE items per connector source (github, slack, notion, drive) in a
// brief's background (docs/brief.md, step 4), so a busy Slack channel cannot crowd out the docs. An
// item that changed since `since` is in motion, not background, and is never capped. Applied to
// the fused order before the pool is cut, so the places capped items would take go to others.
import type { CandidateMeta } from '../retrieval/candidates.js';

export const CONNECTOR_PER_SOURCE = 10;
const CONNECTOR_KINDS = new Set(['github', 'slack', 'notion', 'drive']);

export function capConnectorSources(ids: string[], rows: Map<string, CandidateMeta>, since: Date): string[] {
  const perSource = new Map<string, number>();
  return ids.filter((id) => {
    const row = rows.get(id)!;
    const kind = typeof row.body.source_kind === 'string' ? row.body.source_kind : 'record';
    if (!CONNECTOR_KINDS.has(kind) || row.updated_at >= since) return true;
    const n = (perSource.get(kind) ?? 0) + 1;
    perSource.set(kind, n);
    return n <= CONNECTOR_PER_SOURCE;
  });
}
