// Whether any piece of a secret reached a client or the database: every 8-character window of
// it, searched in a text, and in every row of every table of the doco and graphile_worker schemas.
import { expect } from 'vitest';
import type { TestDb } from './db.js';

const WINDOW = 8;

/**
 * The fixed parts of credential formats (vendor prefixes, OpenAI's marker): a window made only
 * of one of them is no piece of any one secret, and docs name them freely (`sk-proj-…`).
 */
const FIXED_PARTS = [
  'https://hooks.slack.com/services/',
  'sk-ant-api03-',
  'github_pat_',
  'sk-proj-',
  'T3BlbkFJ',
  'sk_live_',
  'rk_live_',
  'glpat-',
  'xoxb-',
  'xoxp-',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'AKIA',
  'ASIA',
  'AIza',
  'npm_',
  'doco_',
  'sk-',
  'pa-',
  'SG.',
];

/** Every 8-character window of the secret that holds something of its own, not only a fixed part. */
export function piecesOf(secret: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i + WINDOW <= secret.length; i++) {
    const piece = secret.slice(i, i + WINDOW);
    if (!FIXED_PARTS.some((f) => f.includes(piece))) pieces.push(piece);
  }
  return pieces;
}

/** No 8-character piece of `secret` occurs in `text` (so no prefix beyond a few characters either). */
export function expectNoPieceOf(text: string, secret: string): void {
  const leaked = piecesOf(secret).filter((p) => text.includes(p));
  expect(leaked, 'a piece of the secret was echoed').toEqual([]);
}

/** The tables (schema.table) with a row whose JSON holds a piece of `secret`. */
export async function tablesHoldingPieceOf(t: TestDb, secret: string): Promise<string[]> {
  const tables = await t.sql<{ name: string }[]>`
    select format('%I.%I', table_schema, table_name) as name from information_schema.tables
     where table_schema in ('doco', 'graphile_worker') and table_type = 'BASE TABLE' order by 1`;
  const pieces = piecesOf(secret);
  const holding: string[] = [];
  for (const { name } of tables) {
    const [row] = await t.sql.unsafe<{ n: number }[]>(
      `select count(*)::int as n from ${name} t where to_jsonb(t)::text like any ($1::text[])`,
      [pieces.map((p) => `%${p.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)] as never,
    );
    if (row!.n) holding.push(name);
  }
  return holding;
}

export async function expectNowhereInDatabase(t: TestDb, secret: string): Promise<void> {
  expect(await tablesHoldingPieceOf(t, secret), 'tables holding a piece of the secret').toEqual([]);
}
