// The shapes Doco's own writers give a record (`body.shape`): search's `shape` filter takes these
// and refuses any other name, as its `type` filter refuses an unknown record type.

export const RECORD_SHAPES = [
  // The doc ingester and docs packs (src/ingest/docs/sections.ts): sections under
  // docs/architecture/, and the rest.
  'architecturePrinciple',
  'docSection',
  // The connectors' records (src/connectors/*/records.ts).
  'pullRequest',
  'issue',
  'slackThread',
  'notionPage',
  'driveFile',
] as const;

export type RecordShape = (typeof RECORD_SHAPES)[number];
