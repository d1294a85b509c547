// A labelled workspace for search's relevance floor (docs/search.md, "Scores and the floor"):
// 27 records on unrelated topics, a few of them about refunds, and queries with what each must
// find, what it may find, and (by omission) what it must not. The two cases of issue 26 are here:
// "refund" listed the whole workspace, "refund approval" --type rule listed "No secrets in records".
import { capture } from '../../src/graph/writes.js';
import { createCollection } from '../../src/graph/collections.js';
import { noJudge } from '../../src/providers/judge.js';
import type { TestWorkspace } from './app.js';
import type { TestDb } from './db.js';

interface FixtureRecord {
  collection: 'constitution' | 'billing' | 'platform' | 'handbook';
  node_type: 'rule' | 'decision' | 'idea' | 'reference';
  title: string;
  prose: string;
}

export const FLOOR_RECORDS = {
  secrets: {
    collection: 'constitution',
    node_type: 'rule',
    title: 'No secrets in records',
    prose: 'Never store passwords, API keys or tokens in a record.',
  },
  refundOwner: {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Refunds over $500 need an owner',
    prose: 'Any refund over $500 needs the approval of an account owner.',
  },
  review: {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Every change is reviewed before it merges',
    prose: 'A second engineer approves each pull request; nobody merges their own change.',
  },
  utc: {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Times are stored in UTC',
    prose: 'Store every timestamp in UTC and convert only when displaying it.',
  },
  pinned: {
    collection: 'constitution',
    node_type: 'rule',
    title: 'Pin dependency versions',
    prose: 'Lockfiles are committed and dependencies are upgraded deliberately, one at a time.',
  },
  refundCard: {
    collection: 'billing',
    node_type: 'decision',
    title: 'Refunds go to the paying card',
    prose: 'Refunds go back to the card that paid, never as store credit.',
  },
  refundPartial: {
    collection: 'billing',
    node_type: 'decision',
    title: 'Partial refunds are allowed',
    prose: 'Support may refund part of an order; the rest of the order stays charged.',
  },
  refundEmail: { collection: 'billing', node_type: 'idea', title: 'Refund receipts by email', prose: 'Email a receipt for every refund.' },
  invoices: {
    collection: 'billing',
    node_type: 'decision',
    title: 'Invoices are numbered per year',
    prose: 'Invoice numbers restart every January; auditors want gapless sequences.',
  },
  vat: {
    collection: 'billing',
    node_type: 'decision',
    title: 'Prices include VAT',
    prose: 'Prices shown to customers in Europe include VAT; the invoice lists it separately.',
  },
  trial: {
    collection: 'billing',
    node_type: 'decision',
    title: 'Trials last 14 days',
    prose: 'A free trial lasts 14 days and needs no card.',
  },
  cents: {
    collection: 'billing',
    node_type: 'decision',
    title: 'Money is stored in minor units',
    prose: 'Amounts are integers in cents, never floating point numbers.',
  },
  webhookRetry: {
    collection: 'platform',
    node_type: 'decision',
    title: 'Webhook retries back off',
    prose: 'Webhook deliveries retry with exponential backoff up to an hour.',
  },
  webhookSigned: {
    collection: 'platform',
    node_type: 'decision',
    title: 'Webhooks are signed',
    prose: 'Every webhook delivery carries an HMAC signature of its body.',
  },
  cacheKeys: {
    collection: 'platform',
    node_type: 'decision',
    title: 'Tenants never share a cache key',
    prose: "Cache keys start with the tenant id, so no tenant reads another tenant's entries.",
  },
  deploys: {
    collection: 'platform',
    node_type: 'decision',
    title: 'Deploys happen on weekdays',
    prose: 'Production deploys run Monday to Thursday, never on a Friday afternoon.',
  },
  flags: {
    collection: 'platform',
    node_type: 'idea',
    title: 'Feature flags per workspace',
    prose: 'Let a workspace opt into a feature before everyone gets it.',
  },
  onboarding: {
    collection: 'platform',
    node_type: 'idea',
    title: 'Onboarding checklist',
    prose: 'New users get a checklist: invite a teammate, connect GitHub, write the first rule.',
  },
  logs: {
    collection: 'platform',
    node_type: 'decision',
    title: 'Logs are structured JSON',
    prose: 'Every service logs one JSON object per line, with its request id.',
  },
  rateLimits: {
    collection: 'platform',
    node_type: 'decision',
    title: 'API rate limits per token',
    prose: 'Each API token may make 600 requests a minute; past that it gets 429.',
  },
  oncall: {
    collection: 'handbook',
    node_type: 'reference',
    title: 'On-call rotation',
    prose: 'The on-call engineer is paged for incidents and hands over every Monday.',
  },
  postmortems: {
    collection: 'handbook',
    node_type: 'reference',
    title: 'Incident postmortems',
    prose: 'Every incident gets a blameless postmortem within a week.',
  },
  accountOwners: {
    collection: 'handbook',
    node_type: 'reference',
    title: 'Account owners',
    prose: 'Each customer account has one owner, who approves payments, refunds and plan changes.',
  },
  backups: {
    collection: 'handbook',
    node_type: 'reference',
    title: 'Database backups',
    prose: 'Postgres is backed up every night and a restore is tested every month.',
  },
  macros: {
    collection: 'handbook',
    node_type: 'reference',
    title: 'Support macros',
    prose: 'Canned replies for the support team: password resets, billing questions, refund requests.',
  },
  zeppelin: {
    collection: 'platform',
    node_type: 'decision',
    title: 'Zeppelin hangar moratorium',
    prose: 'No zeppelin docks at the hangar during the moratorium.',
  },
  style: {
    collection: 'handbook',
    node_type: 'reference',
    title: 'Writing style',
    prose: 'Short sentences, plain words, and no jargon in anything a customer reads.',
  },
} satisfies Record<string, FixtureRecord>;

export type FloorKey = keyof typeof FLOOR_RECORDS;

export interface FloorQuery {
  q: string;
  type?: string;
  /** Must come back. */
  relevant: FloorKey[];
  /** May come back or not: related, but not what was asked. Everything else must not. */
  related?: FloorKey[];
}

export const FLOOR_QUERIES: FloorQuery[] = [
  { q: 'refund', relevant: ['refundOwner', 'refundCard', 'refundPartial', 'refundEmail', 'accountOwners', 'macros'] },
  { q: 'refund approval', type: 'rule', relevant: ['refundOwner'] },
  {
    q: 'refund approval',
    relevant: ['refundOwner', 'accountOwners'],
    related: ['refundCard', 'refundPartial', 'refundEmail', 'macros', 'review'],
  },
  {
    q: 'who approves a refund',
    relevant: ['refundOwner', 'accountOwners'],
    related: ['refundCard', 'refundPartial', 'refundEmail', 'macros', 'review'],
  },
  { q: 'webhook retries', relevant: ['webhookRetry'], related: ['webhookSigned'] },
  { q: 'webhok retrys backof', relevant: ['webhookRetry'], related: ['webhookSigned'] },
  // Misspelt: no term in common, so only the dense list can find what was meant.
  { q: 'zepelinn hangarr moratorum', relevant: ['zeppelin'] },
  { q: 'postmortum incidnt', relevant: ['postmortems'], related: ['oncall'] },
  { q: 'dependancy pinnning', relevant: ['pinned'] },
  { q: 'how do we store money amounts', relevant: ['cents'], related: ['vat', 'refundCard'] },
  { q: 'friday deploys', relevant: ['deploys'] },
  { q: 'timestamps and time zones', relevant: ['utc'] },
  { q: 'kubernetes autoscaling', relevant: [] },
  { q: 'quarterly okr planning offsite', relevant: [] },
];

/** The fixture's collections and records in `ws`, by key (the constitution is the workspace's own). */
export async function seedFloorFixture(t: TestDb, ws: TestWorkspace): Promise<Record<FloorKey, string>> {
  for (const [slug, template] of [
    ['billing', 'product-decisions'],
    ['platform', 'product-decisions'],
    ['handbook', 'documentation'],
  ] as const)
    await createCollection(t.db, ws.id, { slug, template, goal: `The ${slug} records` });
  const ids = {} as Record<FloorKey, string>;
  for (const [key, record] of Object.entries(FLOOR_RECORDS) as [FloorKey, FixtureRecord][]) {
    const { node } = await capture(
      { db: t.db, judge: noJudge },
      { workspaceId: ws.id, principalId: ws.principalId, source: 'api' },
      record,
    );
    ids[key] = node.id;
  }
  return ids;
}
