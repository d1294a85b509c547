// What the row types know that the catalog does not: the names of the unions the code imports,
// the columns a trigger fills, and the shape of a jsonb column. Edit here, then `npm run db:types`.

/**
 * A union named for the code (`NODE_TYPES` and `NodeType`), its values read from the check
 * constraint of `from`; the columns of `also` carry the same values (copied by a trigger, or
 * checked alike: a check that lists other values stops the generator).
 */
export interface NamedUnion {
  values: string;
  type: string;
  from: string;
  also: string[];
}

export const NAMED_UNIONS: NamedUnion[] = [
  { values: 'NODE_TYPES', type: 'NodeType', from: 'nodes.node_type', also: ['node_versions.node_type'] },
  { values: 'EDGE_TYPES', type: 'EdgeType', from: 'edges.edge_type', also: ['edge_versions.edge_type'] },
  {
    values: 'LIFECYCLES',
    type: 'Lifecycle',
    from: 'nodes.lifecycle',
    also: ['edges.lifecycle', 'node_versions.lifecycle', 'edge_versions.lifecycle'],
  },
  { values: 'SOURCES', type: 'Source', from: 'changesets.source', also: [] },
];

/** Not null without a default, but set by the hash-chain trigger from the transaction's changeset (sql/hash_chain.sql). */
export const FILLED_BY_TRIGGER = ['nodes.changeset_id', 'edges.changeset_id'];

/** Columns whose TypeScript type is written by hand, with the imports it needs. */
export const COLUMN_TYPES: Record<string, string> = {
  'templates.policies': 'ColumnType<Policy[], string, string>',
};

export const IMPORTS = ["import type { Policy } from './policy.js';"];

/** Names the generated file exports besides its own. */
export const REEXPORTS = ["export type { Policy } from './policy.js';"];
