// Assertions on the one error shape every interface returns: { error: { code, message, details? } }.
import { expect } from 'vitest';
import type { TestDb } from './db.js';
import { graphCounts } from './app.js';

/** Checks an HTTP answer is exactly the documented error body with this status and code. */
export function expectError(res: { status: number; body: unknown }, status: number, code: string) {
  expect({ status: res.status, code: (res.body as { error?: { code?: unknown } } | undefined)?.error?.code }).toEqual({ status, code });
  const body = res.body as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['error']);
  const error = body.error as Record<string, unknown>;
  expect(typeof error.message).toBe('string');
  expect((error.message as string).length).toBeGreaterThan(0);
  for (const key of Object.keys(error)) expect(['code', 'message', 'details']).toContain(key);
  return error as { code: string; message: string; details?: unknown };
}

/** Runs fn and checks that no node, edge, version, changeset or collection row appeared or vanished. */
export async function expectNoWrite<T>(t: TestDb, fn: () => Promise<T>): Promise<T> {
  const before = await graphCounts(t);
  const result = await fn();
  expect(await graphCounts(t)).toEqual(before);
  return result;
}
