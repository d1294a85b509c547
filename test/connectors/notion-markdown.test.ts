// Notion blocks → Markdown (docs/connectors.md, Notion): each block type the connector reads, nesting,
// flattened toggles, tables, links kept, and no signed file URL (it changes on every read).
import { describe, expect, it } from 'vitest';
import { blocksToMarkdown, richTextToMarkdown } from '../../src/connectors/notion/markdown.js';
import type { NotionBlock } from '../../src/connectors/notion/types.js';

const rt = (plain_text: string, over: Record<string, unknown> = {}) => ({ plain_text, href: null, annotations: {}, ...over });
let n = 0;
const b = (type: string, content: Record<string, unknown>, children?: NotionBlock[]): NotionBlock => ({
  id: `b${++n}`,
  type,
  has_children: !!children,
  [type]: content,
  ...(children ? { children } : {}),
});
const t = (plain: string) => ({ rich_text: [rt(plain)] });

describe('rich text', () => {
  it('keeps links and annotations, with outer spaces outside the markers', () => {
    expect(
      richTextToMarkdown([
        rt('See '),
        rt('the spec', { href: 'https://example.com/spec' }),
        rt(' and '),
        rt('src/billing/refund.ts', { annotations: { code: true } }),
        rt(' now ', { annotations: { bold: true } }),
        rt('maybe', { annotations: { italic: true, strikethrough: true } }),
      ]),
    ).toBe('See [the spec](https://example.com/spec) and `src/billing/refund.ts` **now** ~~_maybe_~~');
  });
});

describe('blocks', () => {
  it('renders headings, lists, to-dos, code, quotes, callouts, dividers and equations', () => {
    const md = blocksToMarkdown([
      b('heading_1', t('Refunds')),
      b('paragraph', t('Partial refunds go through the ledger.')),
      b('bulleted_list_item', t('one'), [b('bulleted_list_item', t('one.a'))]),
      b('bulleted_list_item', t('two')),
      b('numbered_list_item', t('first')),
      b('numbered_list_item', t('second')),
      b('to_do', { ...t('ship it'), checked: true }),
      b('to_do', { ...t('test it'), checked: false }),
      b('heading_3', t('Details')),
      b('code', { rich_text: [rt('const x = 1;\nconst y = 2;')], language: 'typescript' }),
      b('quote', t('Never refund twice.')),
      b('callout', { ...t('Heads up'), icon: { type: 'emoji', emoji: '⚠️' } }),
      b('divider', {}),
      b('equation', { expression: 'e=mc^2' }),
    ]);
    expect(md).toBe(
      [
        '# Refunds',
        '',
        'Partial refunds go through the ledger.',
        '',
        '- one',
        '  - one.a',
        '- two',
        '1. first',
        '2. second',
        '- [x] ship it',
        '- [ ] test it',
        '',
        '### Details',
        '',
        '```typescript\nconst x = 1;\nconst y = 2;\n```',
        '',
        '> Never refund twice.',
        '',
        '> ⚠️ Heads up',
        '',
        '---',
        '',
        '$$e=mc^2$$',
      ].join('\n'),
    );
  });

  it('flattens toggles, columns and synced blocks into the text around them', () => {
    const md = blocksToMarkdown([
      b('toggle', t('Why not Stripe?'), [b('paragraph', t('Fees.')), b('toggle', t('Inner'), [b('paragraph', t('Deep.'))])]),
      b('column_list', {}, [b('column', {}, [b('paragraph', t('Left.'))]), b('column', {}, [b('paragraph', t('Right.'))])]),
      b('synced_block', { synced_from: null }, [b('paragraph', t('Synced.'))]),
    ]);
    expect(md).toBe('Why not Stripe?\n\nFees.\n\nInner\n\nDeep.\n\nLeft.\n\nRight.\n\nSynced.');
  });

  it('renders a table from its rows, the first as the header, pipes escaped', () => {
    const row = (...cells: string[]) => b('table_row', { cells: cells.map((c) => [rt(c)]) });
    const md = blocksToMarkdown([
      b('table', { table_width: 2, has_column_header: true }, [row('Plan', 'Price'), row('Pro', '$10 | month')]),
    ]);
    expect(md).toBe('| Plan | Price |\n| --- | --- |\n| Pro | $10 \\| month |');
  });

  it('links external media and bookmarks, but keeps no signed Notion file URL', () => {
    const md = blocksToMarkdown([
      b('image', { type: 'external', external: { url: 'https://cdn.example.com/arch.png' }, caption: [rt('Architecture')] }),
      b('image', { type: 'file', file: { url: 'https://s3.amazonaws.com/x?X-Amz-Signature=abc', expiry_time: '2026-01-01' }, caption: [] }),
      b('bookmark', { url: 'https://github.com/octo-org/billing/blob/main/app/ledger.ts', caption: [] }),
      b('child_page', { title: 'Runbook' }),
    ]);
    expect(md).toBe(
      '[Architecture](https://cdn.example.com/arch.png)\n\n(image: image)\n\n[https://github.com/octo-org/billing/blob/main/app/ledger.ts](https://github.com/octo-org/billing/blob/main/app/ledger.ts)\n\nSub-page: Runbook',
    );
    expect(md).not.toContain('X-Amz-Signature');
  });
});
