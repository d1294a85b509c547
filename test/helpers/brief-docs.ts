// Doc sections written through the REST capture route, for brief tests that build a docs tree
// record by record: the section's body is the one the doc ingester gives.
import { expect } from 'vitest';
import type { makeApp, TestWorkspace } from './app.js';

/** A capture body for an ingested doc section (shape docSection) in collection `docs`. */
export const docSection = (path: string, heading: string, prose: string) => ({
  collection: 'docs',
  node_type: 'reference',
  title: `${path} — ${heading}`,
  prose,
  body: {
    shape: 'docSection',
    source_kind: 'doc',
    source_type: 'doc_expectation',
    pointer: { path, heading, section_key: `${path}#${heading.toLowerCase()}` },
  },
});

/** POSTs with the workspace's write token and expects success. */
export const writer = (api: ReturnType<typeof makeApp>, ws: () => TestWorkspace) => async (path: string, body: unknown) => {
  const res = await api.call('POST', `/api/v1${path}`, ws().writeToken, body);
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
};
