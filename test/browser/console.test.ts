// The console in a real Chromium: sign in with the one-time link `doco console` prints, approve
// a queued record and find it in the next brief, open a record's history and see the diff, run
// a brief from the form; keyboard reachability; and screenshots of the main pages for
// docs/console.md (docs/console/*.png).
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApp, makeWorkspace, type TestWorkspace } from '../helpers/app.js';
import { launchChromium } from '../helpers/chromium.js';
import { runDoco } from '../helpers/cli.js';
import { agentCapture, personCapture, seedConsole } from '../helpers/console-seed.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { drainAll } from '../helpers/search.js';

const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/console');

let t: TestDb;
let ws: TestWorkspace;
let server: ServerType;
let base: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
let seed: Awaited<ReturnType<typeof seedConsole>>;
let home: string;
let app: ReturnType<typeof makeApp>;

/** The widths every screenshot is taken at: a laptop's, and a phone's (docs/console/<name>-420.png). */
const WIDE = { width: 1280, height: 860 };
const NARROW = { width: 420, height: 860 };

/**
 * Screenshots of the page at 1280 and 420 px. At 420 nothing may be wider than the screen: the
 * top bar and the pages wrap, with CSS only.
 */
async function shot(name: string) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  await page.setViewportSize(NARROW);
  try {
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      nav: document.querySelector('.top-inner')?.scrollWidth ?? 0,
    }));
    expect(widths.page, `${name}: the page at ${NARROW.width} px`).toBeLessThanOrEqual(NARROW.width);
    expect(widths.nav, `${name}: the top bar at ${NARROW.width} px`).toBeLessThanOrEqual(NARROW.width);
    await page.screenshot({ path: path.join(SHOTS, `${name}-420.png`), fullPage: true });
  } finally {
    await page.setViewportSize(WIDE);
  }
}

async function dressWorkspace() {
  // Enough of a workspace that the screenshots show each page doing its job.
  await personCapture(t, ws, {
    title: 'Refunds over $500 need an owner',
    prose: 'Any refund over $500 needs the approval of an account owner. See app/routes/billing.tsx.',
    collection: 'constitution',
    node_type: 'rule',
  });
  await agentCapture(t, ws, {
    title: 'Partial refunds are allowed',
    prose: 'Support may refund part of an order; the rest stays charged. Tracked in #212.',
    lifecycle: 'queued',
    body: { question: 'Can a refund be partial?' },
  });
  const section = await personCapture(t, ws, {
    title: 'Billing: refund flow',
    prose: 'A refund moves from the API to the ledger, then to the card network.',
    node_type: 'reference',
    body: { shape: 'docSection', source_type: 'doc_expectation' },
  });
  await t.sql`insert into doco.doc_manifest (workspace_id, source, section_key, path, hash, node_id) values (${ws.id}, 'fs', 'docs/billing.md#refund-flow', 'docs/billing.md', 'a1b2c3d4e5f60718293a4b5c6d7e8f90', ${section})`;
  await t.sql`
    insert into doco.doc_ingest_runs (workspace_id, source, root, status, finished_at, files, created, updated, skipped, unchanged_files, reap_outcome, reap_reason, reap_count)
    values (${ws.id}, 'fs', '/srv/acme', 'finished', now() - interval '2 hours', 14, 9, 0, 2, 0, 'nothing_to_reap', null, 0),
           (${ws.id}, 'fs', '/srv/acme', 'finished', now() - interval '5 minutes', 3, 0, 1, 0, 2, 'refused', 'would retire 31 of 40 sections (more than a quarter of the manifest)', 0)`;
  await drainAll(t.sql, app.deps);
}

beforeAll(async () => {
  t = await createTestDb();
  ws = await makeWorkspace(t, 'acme');
  app = makeApp(t);
  seed = await seedConsole(t, ws);
  await dressWorkspace();
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  home = await mkdtemp(path.join(os.tmpdir(), 'doco-browser-'));
  browser = await launchChromium();
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (home) await rm(home, { recursive: true, force: true });
  await t?.drop();
});

describe('the console in Chromium', () => {
  it('shows the sign-in page to a browser without a session', async () => {
    await page.goto(`${base}/review`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await expect.poll(() => page.locator('label[for=token]').isVisible()).toBe(true);
    await shot('sign-in');
  });

  it('signs in with the one-time link doco console prints', async () => {
    const res = await runDoco(['console', '--workspace', ws.slug, '--principal', 'ada@acme.dev', '--url', base], {
      env: { DATABASE_URL: t.url, DOCO_HOME: home },
    });
    expect(res.code).toBe(0);
    await page.goto(res.stdout.trim());
    // The link's page names who it signs in; its button spends the code.
    expect(await page.locator('.signin').textContent()).toContain('signs you in as ada@acme.dev');
    await shot('sign-in-link');
    await page.locator('form[action="/sign-in"] button').click();
    await page.waitForURL(`${base}/`);
    expect(await page.locator('h1').first().textContent()).toBe('Overview');
    expect(await page.locator('.who').textContent()).toContain('ada@acme.dev');
    await page.locator('form[action="/verify"] button').click();
    await page.waitForURL(`${base}/#chain`);
    expect(await page.locator('#chain').locator('..').locator('..').textContent()).toContain('Every chain verifies');
    await shot('overview');
  });

  it('approves a queued record and finds it in the next brief', async () => {
    await page.goto(`${base}/review`);
    await shot('review');
    await page.locator(`button[value="approve ${seed.queued} 1"]`).click();
    await page.waitForURL(/\/review\?done=approve/);
    expect(await page.locator('.notice').textContent()).toContain('Approved: 1 record(s)');
    expect(await page.locator(`#t-${seed.queued}`).count()).toBe(0);
    const [row] = await t.sql<{ lifecycle: string; source: string }[]>`
      select n.lifecycle, cs.source from doco.nodes n join doco.changesets cs on cs.id = n.changeset_id where n.id = ${seed.queued}`;
    expect(row).toEqual({ lifecycle: 'active', source: 'ui' });

    await page.goto(`${base}/briefs`);
    await page.fill('#about', 'Who keeps the card fee when refunding?');
    await page.click('button:has-text("Run brief")');
    await page.waitForURL(/\/briefs\/brief_/);
    const served = page.locator(`#tier-already_decided`).locator('..').locator('..');
    expect(await served.locator(`a[href="/records/${seed.queued}"]`).count()).toBeGreaterThan(0);
  });

  it('runs a brief from the form and shows tiers, because and per-step timings', async () => {
    await page.goto(`${base}/briefs`);
    await page.fill('#about', 'Add partial refunds to the billing page');
    await page.fill('#touching', 'app/routes/billing.tsx\n#212');
    await page.fill('#budget', '3000');
    await page.click('button:has-text("Run brief")');
    await page.waitForURL(/\/briefs\/brief_/);
    expect(await page.locator('h1').first().textContent()).toBe('Add partial refunds to the billing page');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('Must obey');
    expect(text).toContain('Refunds over $500 need an owner');
    expect(text).toContain('touches app/routes/billing.tsx');
    expect(await page.locator('table.timings tr').count()).toBeGreaterThan(2);
    await shot('brief');
    await page.goto(`${base}/briefs`);
    await shot('briefs');
  });

  it("opens a record's history and sees the diff to the version before", async () => {
    await page.goto(`${base}/records/${seed.decision}`);
    expect(await page.locator('#history').textContent()).toContain('History (2 versions)');
    const added = page.locator('#v2 .diff ins');
    expect(await added.first().textContent()).toContain('Partial refunds included.');
    expect(await page.locator('#v2 .hash').textContent()).toMatch(/prev_hash [0-9a-f]{64}/);
    await shot('record');
  });

  it('is reachable by keyboard: the skip link first, then the navigation', async () => {
    await page.goto(`${base}/tokens`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Overview');
  });

  it('searches, browses docs and tokens (screenshots)', async () => {
    await page.goto(`${base}/search?q=refund&type=&collection=&shape=`);
    expect(await page.locator('#results').textContent()).toMatch(/results?/);
    await shot('search');
    await page.goto(`${base}/docs?path=docs%2Fbilling.md`);
    expect(await page.locator('main').textContent()).toContain('Reap refused');
    await shot('docs');
    await page.goto(`${base}/tokens`);
    await page.fill('#label', 'CI search bot');
    await page.click('button:has-text("Create token")');
    expect(await page.locator('#new-token').textContent()).toMatch(/doco_/);
    await page.evaluate(() => {
      const el = document.getElementById('new-token');
      if (el) el.textContent = 'doco_•••••••• (shown once)';
    });
    await shot('tokens');
  });

  it('signs out', async () => {
    await page.goto(`${base}/`);
    await page.click('button:has-text("Sign out")');
    await page.waitForURL(`${base}/sign-in`);
    await page.goto(`${base}/review`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });
});
