// What the briefs pages read besides the stored brief: who asked for it.
import type { Db } from '../../../db/connect.js';
import { principalOf } from '../../admits.js';

export interface BriefAsker {
  /** The principal's name, e.g. `cli:ana` or `agent:claude-code@shop`. */
  name: string;
  kind: 'person' | 'agent';
}

/** The principal that asked for a brief of this workspace, or null (a brief asked with no principal). */
export async function briefAsker(db: Db, workspaceId: string, briefId: string): Promise<BriefAsker | null> {
  const asker = await db
    .selectFrom('doco.briefs as b')
    .innerJoin('doco.nodes as p', 'p.id', 'b.principal_id')
    .select('p.title')
    .where('b.id', '=', briefId)
    .where('b.workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return asker ? { name: asker.title, kind: principalOf(asker.title) } : null;
}
