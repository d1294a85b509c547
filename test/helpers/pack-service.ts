// A registering service for docs-pack tests: a second Hono app on a loopback address (127.0.0.1
// by default, port 0) serving a pack that the test can change, plus builders for section text
// long enough to be ingested, and the operator's allow-list such loopback services need.
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { parsePackHosts, type PackHosts } from '../../src/config/pack-hosts.js';

/**
 * DOCO_PACK_HOSTS=127.0.0.1: the host policy refuses loopback addresses unless an operator lists
 * them, and these tests' registering services listen on 127.0.0.1, as an operator's real services
 * listen on a private network and are listed so. That is the allow-list's intended use: tests that
 * fetch from startPackService pass it. (test/ingest/packs-host-policy.test.ts covers the refusals.)
 */
export const LOOPBACK_PACK_HOSTS: PackHosts = parsePackHosts('127.0.0.1').hosts;

export interface PackService {
  baseUrl: string;
  /** The JSON served at /api/v1/system/docs/pack; undefined answers 503. */
  pack: unknown;
  /** The text served instead of `pack`, when set (JSON that JSON.stringify could not write). */
  text?: string;
  /** How many times the pack was fetched. */
  fetches: number;
  close(): Promise<void>;
}

export async function startPackService(pack: unknown, hostname = '127.0.0.1'): Promise<PackService> {
  const app = new Hono();
  const svc: PackService = { baseUrl: '', pack, fetches: 0, close: async () => {} };
  app.get('/api/v1/system/docs/pack', (c) => {
    svc.fetches++;
    if (svc.text !== undefined) return c.body(svc.text, 200, { 'content-type': 'application/json' });
    return svc.pack === undefined ? c.json({ error: 'not ready' }, 503) : c.json(svc.pack);
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname, port: 0 }, () => resolve(s));
  });
  svc.baseUrl = `http://${hostname}:${(server.address() as AddressInfo).port}`;
  svc.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return svc;
}

/** A base URL nothing listens on: a server bound to port 0, then closed. */
export async function deadBaseUrl(): Promise<string> {
  const svc = await startPackService({});
  await svc.close();
  return svc.baseUrl;
}

/** A paragraph of over 250 characters about `topic`: above the 200-character floor. */
export const para = (topic: string, salt = '') =>
  `${topic} ${salt}is described here in enough detail to be ingested as its own section. ` +
  `The ${topic} rules apply to every request the service handles, and the ${topic} behaviour is stable across releases unless noted. ` +
  'Operators read this before changing it.';

/** A Markdown file with an intro and one ## section per topic. */
export const markdown = (title: string, topics: string[], salt: Record<string, string> = {}) =>
  [`# ${title}`, '', para(title), ...topics.flatMap((t) => ['', `## ${t}`, '', para(t, salt[t] ?? '')])].join('\n');

export const openapi = {
  openapi: '3.1.0',
  info: { title: 'Billing API', version: '2.4.0', description: 'Invoices, refunds and payment methods for the billing service.' },
  paths: {
    '/invoices': {
      post: {
        summary: 'Create an invoice',
        description:
          'Creates a draft invoice for a customer. The invoice is numbered when it is finalised, never before, so numbers stay gapless.',
        operationId: 'createInvoice',
        tags: ['invoices'],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Invoice' } } } },
        responses: { '201': { description: 'The draft invoice.' } },
      },
    },
    '/invoices/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'The invoice id, such as inv_123.' }],
      get: {
        summary: 'Fetch one invoice',
        description: 'Returns the invoice with its lines, totals and payment state. Voided invoices are returned too, marked as void.',
        operationId: 'getInvoice',
        responses: {
          '200': { description: 'The invoice.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Invoice' } } } },
          '404': { description: 'No such invoice.' },
        },
      },
    },
  },
  components: {
    schemas: {
      Invoice: {
        type: 'object',
        description: 'A bill sent to a customer for goods or services, with its lines and the amount still due.',
        required: ['id', 'amount_due'],
        properties: {
          id: { type: 'string', description: 'The invoice id.' },
          amount_due: { type: 'integer', description: 'Amount still due, in cents.' },
          lines: { type: 'array', items: { $ref: '#/components/schemas/Line' } },
        },
      },
    },
  },
};
