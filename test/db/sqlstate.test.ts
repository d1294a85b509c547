// Every error the SQL raises reaches a client as one of our error codes, never a 500: each
// `raise exception` under sql/ and migrations/ names its SQLSTATE, and src/db/sqlstate.ts maps
// it (ARCHITECTURE.md, "SQLSTATEs").
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { customSqlStates, fromDatabaseError } from '../../src/db/sqlstate.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Each `raise exception …;` statement of a SQL text, and the SQLSTATE it names (undefined: none,
 * so P0001). A re-raise of a caught error (`errcode = v` where `v = returned_sqlstate`) keeps a
 * code raised elsewhere, so it is not listed.
 */
function raises(sql: string): { statement: string; code: string | undefined }[] {
  const withoutComments = sql.replace(/--[^\n]*/g, '');
  const reraised = new Set([...withoutComments.matchAll(/(\w+)\s*=\s*returned_sqlstate/gi)].map((m) => m[1]!.toLowerCase()));
  return [...withoutComments.matchAll(/raise\s+exception\b[\s\S]*?;/gi)]
    .filter((m) => !reraised.has(/errcode\s*=\s*(\w+)/i.exec(m[0])?.[1]?.toLowerCase() ?? ''))
    .map((m) => ({
      statement: m[0].replace(/\s+/g, ' ').slice(0, 120),
      code: /errcode\s*=\s*'([0-9A-Z]{5})'/i.exec(m[0])?.[1],
    }));
}

/** The raises of a SQL text whose SQLSTATE is missing or maps to no error code. */
function unmapped(sql: string): string[] {
  return raises(sql)
    .filter((r) => !r.code || !fromDatabaseError({ code: r.code, message: 'x' }))
    .map((r) => `${r.code ?? 'no errcode'}: ${r.statement}`);
}

const sqlFiles = ['sql', 'migrations'].flatMap((dir) =>
  readdirSync(path.join(ROOT, dir))
    .filter((n) => n.endsWith('.sql'))
    .map((n) => path.join(dir, n)),
);

describe('SQLSTATEs raised by the SQL', () => {
  it('are each mapped to an API error code', () => {
    const all = sqlFiles.flatMap((file) => raises(readFileSync(path.join(ROOT, file), 'utf8')));
    expect(all.length).toBeGreaterThan(20);
    const missing = sqlFiles.flatMap((file) => unmapped(readFileSync(path.join(ROOT, file), 'utf8')).map((m) => `${file}: ${m}`));
    expect(missing).toEqual([]);
  });

  it('catches a raise without an errcode and one with a code nobody maps (the check can fail)', () => {
    const planted = `
      create function f() returns void language plpgsql as $$ begin
        raise exception 'no code here %', 1;
        raise exception 'an odd one' using errcode = 'DC999';
        raise exception 'mapped' using errcode = 'DC001';
      end $$;`;
    expect(unmapped(planted)).toEqual([
      expect.stringMatching(/^no errcode: raise exception 'no code here/),
      expect.stringMatching(/^DC999: /),
    ]);
  });

  it('maps every custom DCxxx code to a client error, never internal', () => {
    for (const code of Object.keys(customSqlStates)) expect(fromDatabaseError({ code, message: 'm' })?.code).not.toBe('internal');
    expect(fromDatabaseError({ code: '22023', message: 'unknown derivation x' })?.code).toBe('validation_failed');
  });
});
