// What the docs page reads: the doc manifest by path, and one path's sections with the records
// they became.
import type { Sql } from '../../../db/connect.js';

export interface ManifestPath {
  source: string;
  path: string;
  sections: number;
  updated_at: Date;
}

export interface ManifestSection {
  source: string;
  section_key: string;
  hash: string;
  node_id: string;
  title: string | null;
  lifecycle: string | null;
  updated_at: Date;
}

/** Every ingested path (at most 2,000) with its section count, by path. */
export function manifestPaths(sql: Sql, workspaceId: string): Promise<ManifestPath[]> {
  return sql<ManifestPath[]>`
    select source, path, count(*)::int as sections, max(updated_at) as updated_at
      from doco.doc_manifest where workspace_id = ${workspaceId} group by source, path order by path, source limit 2000`;
}

/** One path's sections, each with the title and lifecycle of its record (none: the record is gone). */
export function manifestSections(sql: Sql, workspaceId: string, path: string): Promise<ManifestSection[]> {
  return sql<ManifestSection[]>`
    select m.source, m.section_key, m.hash, m.node_id, n.title, n.lifecycle, m.updated_at
      from doco.doc_manifest m left join doco.nodes n on n.id = m.node_id
     where m.workspace_id = ${workspaceId} and m.path = ${path} order by m.section_key`;
}
