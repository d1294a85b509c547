// Where a record came from, read from its body's `pointer` (docs/ingest.md, the connectors'
// records): the file, heading and line of a doc section, or the issue, page or message a connector
// copied, each as a field, with a link when the pointer holds an http(s) URL. A doc section's
// pointer has no URL (the ingester stores the repository-relative path only), so its path is text.
import type { Child } from 'hono/jsx';

type Pointer = Record<string, unknown>;

/** The pointer's fields in the order a person reads them, with their labels. */
const FIELDS: [key: string, label: string][] = [
  ['repo', 'repository'],
  ['path', 'file'],
  ['heading', 'heading'],
  ['line', 'line'],
  ['number', 'number'],
  ['state', 'state'],
  ['commit', 'commit'],
  ['channel', 'channel'],
  ['ts', 'message'],
  ['page_id', 'page'],
  ['file_id', 'file id'],
  ['mime_type', 'type'],
  ['section_key', 'section key'],
];
const LINK_KEYS = ['url', 'permalink', 'html_url'];

/** An http(s) URL from the pointer, or undefined: any other scheme is shown as text, never linked. */
export function pointerUrl(pointer: Pointer): string | undefined {
  for (const key of LINK_KEYS) {
    const value = pointer[key];
    if (typeof value !== 'string') continue;
    try {
      const u = new URL(value);
      if (u.protocol === 'https:' || u.protocol === 'http:') return u.href;
    } catch {
      // not a URL: shown with the other fields
    }
  }
  return undefined;
}

/** Text with Markdown `code spans` (a heading such as "`doco verify` exit codes") shown as code, not backticks. */
export function InlineCode({ text }: { text: string }) {
  const parts = text.split(/`([^`]+)`/);
  return <>{parts.map((part, i) => (i % 2 ? <code>{part}</code> : part))}</>;
}

const scalar = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

export const isPointer = (v: unknown): v is Pointer => !!v && typeof v === 'object' && !Array.isArray(v);

/** A pointer as a list of labelled fields; the file (or the first field) links to its URL when one is known. */
export function SourceFields({ pointer }: { pointer: Pointer }) {
  const url = pointerUrl(pointer);
  const known = new Set([...FIELDS.map(([k]) => k), ...LINK_KEYS]);
  const rows: [string, Child][] = [];
  for (const [key, label] of FIELDS) {
    const value = scalar(pointer[key]);
    if (value === undefined) continue;
    const shown = key === 'heading' ? <InlineCode text={value} /> : key === 'path' || key === 'section_key' ? <code>{value}</code> : value;
    rows.push([label, key === 'path' && url ? <a href={url}>{shown}</a> : shown]);
  }
  for (const [key, value] of Object.entries(pointer)) {
    const text = known.has(key) ? undefined : scalar(value);
    if (text !== undefined) rows.push([key.replace(/_/g, ' '), text]);
  }
  if (url && !(scalar(pointer.path) !== undefined))
    rows.push([
      'link',
      <a href={url} class="ellipsis">
        {url}
      </a>,
    ]);
  if (!rows.length) return <span class="muted">(nothing recorded)</span>;
  return (
    <dl class="kv">
      {rows.map(([label, value]) => (
        <>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </>
      ))}
    </dl>
  );
}
