// What each NATS message does, without a NATS server: handleNatsMessage on a real database.
// A registration registers the pack and queues one pull (a repeated one does not queue a
// second), an unregistration retires that code's docs, gateway_online queues a pull of every
// pack, and a malformed message is a warning that changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullDocsPack } from '../../src/ingest/packs/pull.js';
import { registerAndQueuePull, unregisterPack } from '../../src/ingest/packs/queue.js';
import { findPack } from '../../src/ingest/packs/registry.js';
import { handleNatsMessage, type NatsHandlerDeps } from '../../src/nats/handle.js';
import { parsePackHosts } from '../../src/config/pack-hosts.js';
import type { Log } from '../../src/lib/log.js';
import { makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { LOOPBACK_PACK_HOSTS, markdown, startPackService, type PackService } from '../helpers/pack-service.js';

let t: TestDb;
let ws: TestWorkspace;
let billing: PackService;
const lines: { level: string; msg: string }[] = [];
const log: Log = {
  debug: (msg) => lines.push({ level: 'debug', msg }),
  info: (msg) => lines.push({ level: 'info', msg }),
  warn: (msg) => lines.push({ level: 'warn', msg }),
  error: (msg) => lines.push({ level: 'error', msg }),
};
// The pack service listens on 127.0.0.1: listed (DOCO_PACK_HOSTS=127.0.0.1), as an operator lists a private service.
const deps = (): NatsHandlerDeps => ({ sql: t.sql, db: t.db, log, workspaceId: ws.id, packHosts: LOOPBACK_PACK_HOSTS });
const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const pack = { format: 1, code: 'billing', files: [{ path: 'docs/invoices.md', content: markdown('Invoices', ['Numbering', 'Voiding']) }] };
const register = (code = 'billing', baseUrl = () => billing.baseUrl) => json({ code, base_url: baseUrl(), capabilities: ['docs_pack'] });

const pullJobs = async () =>
  (
    await t.sql<{ payload: { code: string } }[]>`
    select j.payload from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
     where k.identifier = 'docs__pack_pull' order by j.payload->>'code'`
  ).map((j) => j.payload.code);
const liveSections = async (code: string) =>
  (
    await t.sql`select 1 from doco.doc_manifest m join doco.nodes n on n.id = m.node_id where m.source = ${`pack:${code}`} and n.lifecycle <> 'retired'`
  ).length;

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'nats');
  billing = await startPackService(pack);
});
afterAll(async () => {
  await billing.close();
  await t.drop();
});

describe('handling NATS messages', () => {
  it('registers a docs pack and queues one pull, however often it is registered', async () => {
    expect(await handleNatsMessage(deps(), 'register', 'service.register', register())).toBe('registered');
    expect(await handleNatsMessage(deps(), 'register', 'service.register', register())).toBe('registered');
    expect(await findPack(t.sql, ws.id, 'billing')).toMatchObject({ code: 'billing', base_url: billing.baseUrl });
    expect(await pullJobs()).toEqual(['billing']);
    expect(billing.fetches).toBe(0);
  });

  it('passes over a service without the docs_pack capability', async () => {
    expect(
      await handleNatsMessage(
        deps(),
        'register',
        'service.register',
        json({ code: 'search', base_url: 'http://127.0.0.1:9', capabilities: ['http'] }),
      ),
    ).toBe('ignored');
    expect(await findPack(t.sql, ws.id, 'search')).toBeUndefined();
  });

  it('drops a malformed message with a warning naming the subject and the fault, changing nothing', async () => {
    const before = { jobs: await pullJobs(), pack: await findPack(t.sql, ws.id, 'billing') };
    lines.length = 0;
    const garbage: [Parameters<typeof handleNatsMessage>[1], Uint8Array][] = [
      ['register', new TextEncoder().encode('{"code": "billing", base_url')],
      ['register', json({ code: 'billing', base_url: 'ftp://x', capabilities: ['docs_pack'] })],
      ['unregister', json({ code: ['billing'] })],
      ['gatewayOnline', json([true])],
    ];
    for (const [kind, data] of garbage) expect(await handleNatsMessage(deps(), kind, `subject.${kind}`, data)).toBe('malformed');
    expect(lines.map((l) => l.level)).toEqual(['warn', 'warn', 'warn', 'warn']);
    expect(lines[0]!.msg).toMatch(/^NATS subject\.register: dropped a malformed message: the message is not JSON/);
    expect(lines[1]!.msg).toMatch(/^NATS subject\.register: dropped a malformed message: base_url must be an http\(s\) URL/);
    expect(lines[2]!.msg).toMatch(/^NATS subject\.unregister: dropped a malformed message: code must be a string/);
    expect({ jobs: await pullJobs(), pack: await findPack(t.sql, ws.id, 'billing') }).toEqual(before);
  });

  it('unregisters a pack: its docs retired, its waiting pull dropped, its registration gone', async () => {
    await t.sql`delete from graphile_worker._private_jobs`;
    expect((await pullDocsPack(deps(), ws.id, 'billing')).outcome).toBe('ingested');
    expect(await liveSections('billing')).toBeGreaterThan(0);
    await handleNatsMessage(deps(), 'register', 'service.register', register());
    expect(await pullJobs()).toEqual(['billing']);
    expect(await handleNatsMessage(deps(), 'unregister', 'service.unregister', json({ code: 'billing' }))).toBe('unregistered');
    expect(await liveSections('billing')).toBe(0);
    expect(await pullJobs()).toEqual([]);
    expect(await findPack(t.sql, ws.id, 'billing')).toBeUndefined();
    // Again, and for a code never registered: nothing to do, no error.
    expect(await handleNatsMessage(deps(), 'unregister', 'service.unregister', json({ code: 'billing' }))).toBe('unregistered');
    expect(await handleNatsMessage(deps(), 'unregister', 'service.unregister', json({ code: 'nobody' }))).toBe('unregistered');
  });

  it('queues a pull of every registered pack on gateway_online', async () => {
    await handleNatsMessage(deps(), 'register', 'service.register', register('billing'));
    await handleNatsMessage(
      deps(),
      'register',
      'service.register',
      register('payments', () => 'http://127.0.0.1:9'),
    );
    await t.sql`delete from graphile_worker._private_jobs`;
    expect(await handleNatsMessage(deps(), 'gatewayOnline', 'gateway_online', new Uint8Array())).toBe('repulled');
    expect(await pullJobs()).toEqual(['billing', 'payments']);
  });

  it('refuses a registration naming an address the host policy refuses (not listed), with a warning, registering nothing', async () => {
    const before = { jobs: await pullJobs(), packs: await t.sql`select * from doco.docs_packs` };
    lines.length = 0;
    for (const base of ['http://127.0.0.2:8080', 'http://169.254.169.254', 'http://localhost:3000', 'http://[fd00:ec2::254]'])
      expect(
        await handleNatsMessage(
          { ...deps(), packHosts: [] },
          'register',
          'service.register',
          register('intruder', () => base),
        ),
      ).toBe('refused');
    expect(lines.map((l) => l.level)).toEqual(['warn', 'warn', 'warn', 'warn']);
    expect(lines[1]!.msg).toMatch(
      /^NATS service\.register: refused a registration: .*base_url names a cloud metadata address; .*DOCO_PACK_HOSTS$/,
    );
    expect({ jobs: await pullJobs(), packs: await t.sql`select * from doco.docs_packs` }).toEqual(before);
    // Listed by the operator, the same address registers.
    const listed = { ...deps(), packHosts: [...LOOPBACK_PACK_HOSTS, ...parsePackHosts('127.0.0.2:8080').hosts] };
    expect(
      await handleNatsMessage(
        listed,
        'register',
        'service.register',
        register('intruder', () => 'http://127.0.0.2:8080'),
      ),
    ).toBe('registered');
    await handleNatsMessage(deps(), 'unregister', 'service.unregister', json({ code: 'intruder' }));
  });

  it('keeps a registered code at its host: another host is refused with a warning; a new port is taken', async () => {
    const hosts = { ...deps(), packHosts: [...LOOPBACK_PACK_HOSTS, ...parsePackHosts('127.0.0.2:8080,127.0.0.1:9').hosts] };
    expect(
      await handleNatsMessage(
        hosts,
        'register',
        'service.register',
        register('ledger', () => 'http://127.0.0.1:9'),
      ),
    ).toBe('registered');
    lines.length = 0;
    // Anyone who may publish on the subject, naming the code another service registered.
    expect(
      await handleNatsMessage(
        hosts,
        'register',
        'service.register',
        register('ledger', () => 'http://127.0.0.2:8080'),
      ),
    ).toBe('refused');
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: expect.stringMatching(
          /^NATS service\.register: refused a registration: docs pack ledger is registered at http:\/\/127\.0\.0\.1:9: a registration at another host is a person's to make/,
        ),
      },
    ]);
    expect(await findPack(t.sql, ws.id, 'ledger')).toMatchObject({ base_url: 'http://127.0.0.1:9' });
    // The service redeployed on another port of its host: taken.
    expect(
      await handleNatsMessage(
        hosts,
        'register',
        'service.register',
        register('ledger', () => billing.baseUrl),
      ),
    ).toBe('registered');
    expect(await findPack(t.sql, ws.id, 'ledger')).toMatchObject({ base_url: billing.baseUrl });
    await handleNatsMessage(deps(), 'unregister', 'service.unregister', json({ code: 'ledger' }));
  });

  it("never unregisters a person's pack, so it cannot be moved to another host by unregistering it first", async () => {
    const hosts = { ...deps(), packHosts: [...LOOPBACK_PACK_HOSTS, ...parsePackHosts('127.0.0.2:8080').hosts] };
    // A person registers `refunds` (POST /system/docs/packs), and it is ingested.
    await registerAndQueuePull(t.sql, hosts.packHosts, ws.id, 'refunds', billing.baseUrl);
    billing.pack = { ...pack, code: 'refunds' };
    try {
      expect((await pullDocsPack(hosts, ws.id, 'refunds')).outcome).toBe('ingested');
    } finally {
      billing.pack = pack;
    }
    const sections = await liveSections('refunds');
    expect(sections).toBeGreaterThan(0);
    lines.length = 0;
    expect(await handleNatsMessage(hosts, 'unregister', 'service.unregister', json({ code: 'refunds' }))).toBe('refused');
    expect(lines).toEqual([
      {
        level: 'warn',
        msg: "NATS service.unregister: refused an unregistration: docs pack refunds was registered by a person: it is a person's to unregister (DELETE /system/docs/packs/refunds with a write token)",
      },
    ]);
    expect(await liveSections('refunds')).toBe(sections);
    expect(
      await handleNatsMessage(
        hosts,
        'register',
        'service.register',
        register('refunds', () => 'http://127.0.0.2:8080'),
      ),
    ).toBe('refused');
    expect(await findPack(t.sql, ws.id, 'refunds')).toMatchObject({ base_url: billing.baseUrl });
    // The service announcing itself again at its host keeps the registration a person's.
    expect(await handleNatsMessage(hosts, 'register', 'service.register', register('refunds'))).toBe('registered');
    expect(await handleNatsMessage(hosts, 'unregister', 'service.unregister', json({ code: 'refunds' }))).toBe('refused');
    // A person unregisters it.
    await unregisterPack(deps(), ws.id, 'refunds');
    expect(await findPack(t.sql, ws.id, 'refunds')).toBeUndefined();
  });

  it('logs a failure to act as an error and returns, never throws', async () => {
    lines.length = 0;
    const broken = { ...deps(), workspaceId: '00000000-0000-0000-0000-000000000000' };
    expect(await handleNatsMessage(broken, 'register', 'service.register', register('orphan'))).toBe('failed');
    expect(lines).toEqual([{ level: 'error', msg: expect.stringMatching(/^NATS service\.register: could not act on the message: /) }]);
  });
});
