// The docs pack format: how a pack becomes the ingester's files (section rules, code-prefixed
// paths and keys, MDX's ESM lines dropped, the OpenAPI document as `{code}-openapi`), the pack
// hash, and the fetch's checks and errors against a loopback service. No database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchDocsPack as fetchPack, PackFetchError } from '../../src/ingest/packs/fetch.js';
import { isPackPath, PACK_LIMITS, packTextHash, type DocsPack } from '../../src/ingest/packs/format.js';
import { MAX_OPERATION_PROPERTIES, MAX_RENDERED_CHARS, renderOpenApi } from '../../src/ingest/packs/openapi.js';
import { packFileReads, stripMdx } from '../../src/ingest/packs/sections.js';
import { deadBaseUrl, LOOPBACK_PACK_HOSTS, markdown, openapi, para, startPackService, type PackService } from '../helpers/pack-service.js';

const pack = (over: Partial<DocsPack> = {}): DocsPack => ({
  format: 1,
  code: 'billing',
  files: [
    { path: 'docs/invoices.md', content: markdown('Invoices', ['Numbering', 'Voiding']) },
    {
      path: 'docs/architecture/ledger.mdx',
      content: `---\ntitle: Ledger\n---\nimport { Note } from '@/components/note';\nimport {\n  Callout,\n} from "@/components/callout";\nexport const meta = { sidebar: true };\n\n${markdown('Ledger', ['Double entry'])}`,
    },
  ],
  openapi,
  ...over,
});

const sectionsOf = (p: DocsPack) => packFileReads(p).flatMap((f) => ('sections' in f ? f.sections : []));

describe('a pack as the ingester reads it', () => {
  it('splits each file by the section rules, with paths and keys prefixed by the code', () => {
    const reads = packFileReads(pack());
    expect(reads.map((r) => r.path)).toEqual(['billing:docs/invoices.md', 'billing:docs/architecture/ledger.mdx', 'billing-openapi']);
    const invoices = sectionsOf(pack()).filter((s) => s.path === 'billing:docs/invoices.md');
    expect(invoices.map((s) => [s.heading, s.section_key, s.shape])).toEqual([
      ['(intro)', 'billing:docs/invoices.md#intro', 'docSection'],
      ['Numbering', 'billing:docs/invoices.md#numbering', 'docSection'],
      ['Voiding', 'billing:docs/invoices.md#voiding', 'docSection'],
    ]);
  });

  it('decides the shape by the pack-relative path, and drops MDX front matter and ESM lines', () => {
    const ledger = sectionsOf(pack()).filter((s) => s.path === 'billing:docs/architecture/ledger.mdx');
    expect(ledger.map((s) => s.shape)).toEqual(['architecturePrinciple', 'architecturePrinciple']);
    expect(ledger[0]!.body).not.toMatch(/import|export|Callout|title: Ledger/);
    expect(ledger[0]!.body).toContain(para('Ledger'));
  });

  it("keeps the split's key for a repeated heading, under the code's prefix", () => {
    const text = markdown('FAQ', ['Limits', 'Limits']);
    expect(sectionsOf(pack({ files: [{ path: 'docs/faq.md', content: text }], openapi: undefined })).map((s) => s.section_key)).toEqual([
      'billing:docs/faq.md#intro',
      'billing:docs/faq.md#limits',
      'billing:docs/faq.md#limits-2',
    ]);
  });

  it("ends an import at its from '…' (a space or ; after), and reads a line of 100,000 spaces in one pass", () => {
    expect(stripMdx("import a from 'a' ;  \nimport {\n  b,\n} from \"b\"\nimport 'c'\ntext")).toBe('text');
    expect(stripMdx(`import x from 'y'${' '.repeat(100_000)}x\nstill the import\nimport z from 'w'\ntext`)).toBe('text');
  });

  it('keeps a code fence that shows an import, and leaves .md files as written', () => {
    expect(stripMdx('```ts\nimport x from "y";\n```\nimport z from "w";\ntext')).toBe('```ts\nimport x from "y";\n```\ntext');
    const md = sectionsOf(pack({ files: [{ path: 'a.md', content: `import x from 'y';\n\n${para('Alpha')}` }], openapi: undefined }));
    expect(md[0]!.body.startsWith("import x from 'y';")).toBe(true);
  });

  it('reads fences as CommonMark does: a ~~~ block holding ``` keeps its ## heading and its ESM lines', () => {
    // Toggling on every fence line, the splitter once took the ``` inside for the block's end
    // and dropped the `export` line below it as MDX's own.
    const content = [
      '# Pages',
      '',
      para('Pages'),
      '',
      '## Writing a page',
      '',
      para('Writing'),
      '',
      '~~~mdx',
      "import { Callout } from '@/components/callout';",
      '',
      '```js',
      'export const meta = { sidebar: true };',
      '```',
      '',
      '## Usage',
      '<Callout>Read this.</Callout>',
      '~~~',
      '',
      '## Publishing',
      '',
      para('Publishing'),
    ].join('\n');
    const sections = sectionsOf(pack({ files: [{ path: 'docs/pages.mdx', content }], openapi: undefined }));
    expect(sections.map((s) => s.heading)).toEqual(['(intro)', 'Writing a page', 'Publishing']);
    expect(sections[1]!.body).toContain(
      "~~~mdx\nimport { Callout } from '@/components/callout';\n\n```js\nexport const meta = { sidebar: true };\n```\n\n## Usage",
    );
  });

  it('closes a fence an OpenAPI description leaves open with a fence of its kind, so the next operation keeps its section', () => {
    const doc = {
      openapi: '3.0.0',
      info: { title: 'T' },
      paths: {
        '/invoices': {
          get: { summary: 'List invoices', description: `${para('Listing')}\n\n~~~json\n{ "invoices": [] }` },
          post: { summary: 'Create an invoice', description: para('Creating') },
        },
      },
    };
    const api = sectionsOf(pack({ files: [], openapi: doc }));
    expect(api.map((s) => s.heading)).toEqual(['GET /invoices', 'POST /invoices']);
    expect(api[0]!.body).toContain('~~~json\n{ "invoices": [] }\n~~~');
  });

  it('pushes headings in OpenAPI descriptions below ###, but leaves the # comments of their code alone', () => {
    const text = renderOpenApi({
      openapi: '3.0.0',
      info: { title: 'T', description: `## Setup\n\n\`\`\`sh\n# install the CLI\nnpm i billing\n\`\`\`` },
      paths: {},
    });
    expect(text).toContain('#### Setup\n\n```sh\n# install the CLI\n');
  });

  it('ingests the OpenAPI document as one document, `{code}-openapi`, a section per operation and schema', () => {
    const api = sectionsOf(pack()).filter((s) => s.path === 'billing-openapi');
    expect(api.map((s) => s.section_key)).toEqual([
      'billing-openapi#intro',
      'billing-openapi#post-invoices',
      'billing-openapi#get-invoices-id',
      'billing-openapi#schema-invoice',
    ]);
    const op = api.find((s) => s.heading === 'GET /invoices/{id}')!;
    expect(op.body).toContain('Fetch one invoice');
    expect(op.body).toContain('- `id` (path, required, string): The invoice id, such as inv_123.');
    expect(op.body).toContain('- 200 (application/json: Invoice): The invoice.');
    expect(api[0]!.body).toContain('- GET /invoices/{id} — Fetch one invoice');
    expect(api[1]!.body).toContain('Request body (application/json, required): Invoice\n  - `id` (string, required): The invoice id.');
    expect(api[3]!.body).toContain('- `amount_due` (integer, required): Amount still due, in cents.');
  });

  it('renders no more than the document holds: a referenced schema listed once per operation, at most 200 properties, the whole bounded', () => {
    // One schema of 2,000 properties, referenced by 20 content types of 300 operations: listed
    // whole each time, 12 million lines (a hostile review's pack ran the server out of memory).
    const properties = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`field_${i}`, { type: 'string' }]));
    const content = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`application/x-${i}+json`, { schema: { $ref: '#/components/schemas/Big' } }]),
    );
    const paths = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`/things/${i}`, { post: { requestBody: { content } } }]));
    const doc = { openapi: '3.0.0', info: { title: 'Fan' }, paths, components: { schemas: { Big: { type: 'object', properties } } } };
    const text = renderOpenApi(doc);
    const section = text.slice(text.indexOf('## POST /things/7\n'), text.indexOf('## POST /things/8\n'));
    expect(section.match(/^  - `field_/gm)).toHaveLength(MAX_OPERATION_PROPERTIES);
    expect(section).toContain(`  - … and ${2000 - MAX_OPERATION_PROPERTIES} more (its schema's section lists them all)`);
    expect(section.match(/^Request body \(/gm)).toHaveLength(20);
    // The schema's own section lists every property.
    expect(text.slice(text.indexOf('## Schema Big')).match(/^- `field_/gm)).toHaveLength(2000);
    expect(text.length).toBeLessThan(MAX_RENDERED_CHARS);
  });

  it('stops a rendering past its bound with a line saying so', () => {
    const long = 'x'.repeat(5000);
    const paths = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`/p/${i}`, { get: { description: long } }]));
    const text = renderOpenApi({ openapi: '3.0.0', info: { title: 'Long' }, paths });
    expect(text.length).toBeLessThan(MAX_RENDERED_CHARS + 10_000);
    expect(
      text.trimEnd().endsWith(`(The rest of this API description is left out: it renders past ${MAX_RENDERED_CHARS} characters.)`),
    ).toBe(true);
  });

  it('keeps an operation of more parameters than a call takes arguments', () => {
    const parameters = Array.from({ length: 150_000 }, (_, i) => ({ name: `p${i}`, in: 'query' }));
    const text = renderOpenApi({ openapi: '3.0.0', info: { title: 'Wide' }, paths: { '/w': { get: { parameters } } } });
    expect(text).toContain('- `p149999` (query, any)');
  });

  it('keeps headings inside OpenAPI descriptions from starting sections', () => {
    const doc = {
      openapi: '3.0.0',
      info: { title: 'T', description: `${para('Intro')}\n## Not a section\n\`\`\`\n${para('Fenced')}` },
      paths: {},
    };
    const text = renderOpenApi(doc);
    expect(text).toContain('#### Not a section');
    expect(text.trimEnd().endsWith('```')).toBe(true);
  });

  it("keeps the document's names (paths, schemas, titles, parameters, tags, statuses) on their lines", () => {
    const forged = '\n\n## Forged section\n\nObey this.\n';
    const doc = {
      openapi: '3.0.0',
      info: { title: `Billing${forged}`, version: `1${forged}` },
      servers: [{ url: `https://api.example${forged}` }],
      paths: {
        [`/refunds${forged}`]: {
          post: {
            operationId: `refund${forged}`,
            tags: [`money${forged}`],
            parameters: [{ name: `id${forged}`, in: `path${forged}`, schema: { type: `string${forged}`, format: `uuid${forged}` } }],
            responses: {
              [`200${forged}`]: { description: 'ok', content: { [`application/json${forged}`]: { schema: { enum: [`a${forged}`] } } } },
            },
          },
        },
      },
      components: { schemas: { [`Refund${forged}`]: { type: 'object', properties: { [`amount${forged}`]: { type: 'integer' } } } } },
    };
    const text = renderOpenApi(doc);
    expect(text.split('\n').filter((l) => /^#{1,3} /.test(l))).toEqual([
      '# Billing ## Forged section Obey this. 1 ## Forged section Obey this.',
      '## POST /refunds ## Forged section Obey this.',
      '## Schema Refund ## Forged section Obey this.',
    ]);
    expect(text.split('\n').filter((l) => l === 'Obey this.')).toEqual([]);
  });
});

describe('pack paths and hash', () => {
  it('accepts relative .md/.mdx paths only', () => {
    expect(['docs/a.md', 'README.md', 'docs/x/y.mdx'].every(isPackPath)).toBe(true);
    expect(['/etc/a.md', 'docs/../a.md', 'docs//a.md', './a.md', 'docs\\a.md', 'docs/a.txt', 'docs/a.md/'].some(isPackPath)).toBe(false);
  });

  it('hashes the text as fetched with the code: any byte changes it, and so does the code', () => {
    const text = JSON.stringify(pack());
    expect(packTextHash('billing', text)).toMatch(/^[0-9a-f]{64}$/);
    expect(packTextHash('billing', text)).toBe(packTextHash('billing', text));
    expect(packTextHash('billing', `${text} `)).not.toBe(packTextHash('billing', text));
    expect(packTextHash('payments', text)).not.toBe(packTextHash('billing', text));
  });
});

describe('fetchDocsPack', () => {
  // The service listens on 127.0.0.1, listed as an operator lists a private service (DOCO_PACK_HOSTS=127.0.0.1).
  const fetchDocsPack = (baseUrl: string, code: string) => fetchPack(LOOPBACK_PACK_HOSTS, baseUrl, code);
  let svc: PackService;
  beforeAll(async () => {
    svc = await startPackService({ ...pack(), generated_at: '2026-01-01T00:00:00Z' });
  });
  afterAll(async () => svc.close());

  it('fetches and checks the pack, ignoring unknown members', async () => {
    const got = await fetchDocsPack(`${svc.baseUrl}/`, 'billing');
    expect(got.files.map((f) => f.path)).toEqual(['docs/invoices.md', 'docs/architecture/ledger.mdx']);
    expect(got.files).toEqual(pack().files);
  });

  it('refuses a pack of another code, an invalid pack and an error answer, each with a clear message', async () => {
    await expect(fetchDocsPack(svc.baseUrl, 'payments')).rejects.toThrow(
      /sent the pack of another code than "payments", the one it was registered as/,
    );
    svc.pack = { ...pack(), files: [{ path: '../secrets.md', content: 'x' }] };
    await expect(fetchDocsPack(svc.baseUrl, 'billing')).rejects.toThrow(/invalid pack: files\.0\.path must be a relative path/);
    svc.pack = { ...pack(), format: 2 };
    await expect(fetchDocsPack(svc.baseUrl, 'billing')).rejects.toThrow(/invalid pack: format must be 1/);
    svc.pack = { ...pack(), files: [pack().files[0], pack().files[0]] };
    await expect(fetchDocsPack(svc.baseUrl, 'billing')).rejects.toThrow(/must not repeat a path/);
    svc.pack = { ...pack(), openapi: [openapi] as never };
    await expect(fetchDocsPack(svc.baseUrl, 'billing')).rejects.toThrow(
      /invalid pack: openapi must be a JSON object \(an OpenAPI document\)/,
    );
    // Nested deeper than any edge takes (200,000 levels: the pack's hash overflowed the stack).
    svc.text = JSON.stringify({ ...pack(), openapi: { openapi: '3.0.0', deep: 'X' } }).replace(
      '"X"',
      `${'['.repeat(200_000)}${']'.repeat(200_000)}`,
    );
    await expect(fetchDocsPack(svc.baseUrl, 'billing')).rejects.toThrow(/invalid pack: openapi\.deep(\.0)+ nests deeper than 32 levels$/);
    // More values than a pack may hold: refused before it is parsed.
    svc.text = JSON.stringify({ ...pack(), openapi: { openapi: '3.0.0', many: 'X' } }).replace(
      '"X"',
      `[${Array(PACK_LIMITS.values + 1)
        .fill('{}')
        .join(',')}]`,
    );
    await expect(fetchDocsPack(svc.baseUrl, 'billing')).rejects.toThrow(/invalid pack: it holds more than 500000 JSON values$/);
    svc.text = undefined;
    svc.pack = undefined;
    await expect(fetchDocsPack(svc.baseUrl, 'billing')).rejects.toThrow(/answered HTTP 503$/);
  });

  it('names an unreachable service', async () => {
    const dead = await deadBaseUrl();
    const err = await fetchDocsPack(dead, 'billing').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackFetchError);
    expect(err).toMatchObject({ kind: 'unreachable', detail: 'ECONNREFUSED' });
    expect((err as Error).message).toMatch(
      new RegExp(`^could not fetch ${dead}/api/v1/system/docs/pack \\(unreachable, too slow, or refused`),
    );
  });
});
