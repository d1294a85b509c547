// One fresh database per test file, copied from the migrated template.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { connect, type DbHandles } from '../../src/db/connect.js';

export interface TestDb extends DbHandles {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDb(): Promise<TestDb> {
  const templateUrl = inject('databaseUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl(templateUrl), { max: 1, onnotice: () => {} });
  try {
    // Concurrent copies of one template can collide ("being accessed by other users"): retry.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`create database ${name} template doco_template`);
        break;
      } catch (err) {
        if (attempt >= 50 || (err as { code?: string }).code !== '55006') throw err;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  const url = templateUrl.replace(/\/[^/]+$/, `/${name}`);
  const handles = connect(url);
  return {
    ...handles,
    url,
    async drop() {
      await handles.close();
      const a = postgres(adminUrl(templateUrl), { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/** A database with nothing of Doco in it (copied from template0), for tests that migrate from scratch. */
export async function createEmptyDb(): Promise<{ url: string; drop(): Promise<void> }> {
  const templateUrl = inject('databaseUrl');
  const name = `empty_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl(templateUrl), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name} template template0`);
  } finally {
    await admin.end();
  }
  return {
    url: templateUrl.replace(/\/[^/]+$/, `/${name}`),
    async drop() {
      const a = postgres(adminUrl(templateUrl), { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

const adminUrl = (url: string) => url.replace(/\/[^/]+$/, '/postgres');
