// Small pieces every page uses: lifecycle and type pills, times, record links, boxes, the CSRF
// field. hono/jsx escapes every text child and attribute value, so data is never markup.
import type { Child } from 'hono/jsx';

export function ago(d: Date | string | null | undefined, now = Date.now()): string {
  if (!d) return 'never';
  const ms = now - new Date(d).getTime();
  const s = Math.round(ms / 1000);
  if (s < 0) return 'in the future';
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 36) return `${h} h ago`;
  const days = Math.round(h / 24);
  if (days < 60) return `${days} days ago`;
  return new Date(d).toISOString().slice(0, 10);
}

export const Time = ({ d }: { d: Date | string | null | undefined }) =>
  d ? (
    <time datetime={new Date(d).toISOString()} title={new Date(d).toISOString()}>
      {ago(d)}
    </time>
  ) : (
    <span class="faint">never</span>
  );

export const Pill = ({ kind, children }: { kind: string; children?: Child }) => (
  <span class={`pill pill-${kind}`}>{children ?? kind.replace(/_/g, ' ')}</span>
);

export const Lifecycle = ({ value }: { value: string }) => <Pill kind={value} />;
export const TypePill = ({ value }: { value: string }) => <Pill kind="type">{value}</Pill>;

export const RecordLink = ({ id, title }: { id: string; title?: string | null }) => (
  <a href={`/records/${encodeURIComponent(id)}`}>{title ? title : <code>{id}</code>}</a>
);

export const Box = ({
  title,
  actions,
  flush,
  children,
  id,
}: {
  title: Child;
  actions?: Child;
  flush?: boolean;
  children?: Child;
  id?: string;
}) => (
  <section class="box" aria-labelledby={id}>
    <div class="box-head">
      <h2 id={id}>{title}</h2>
      {actions ? <div class="actions">{actions}</div> : null}
    </div>
    <div class={flush ? 'box-body flush' : 'box-body'}>{children}</div>
  </section>
);

export const Empty = ({ children }: { children: Child }) => <p class="empty">{children}</p>;

/** Links to the newer and older pages of a list (`path?page=N`), when there is more than one. */
export function PageNav({ path, page, pages, style }: { path: string; page: number; pages: number; style?: string }) {
  if (pages <= 1) return null;
  return (
    <nav class="actions" aria-label="Pages" style={style}>
      {page > 1 ? (
        <a class="button" href={`${path}?page=${page - 1}`}>
          ← Newer
        </a>
      ) : null}
      {page < pages ? (
        <a class="button" href={`${path}?page=${page + 1}`}>
          Older →
        </a>
      ) : null}
    </nav>
  );
}

export const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

export const Stat = ({ value, label }: { value: Child; label: string }) => (
  <div class="stat">
    <b>{value}</b>
    <span>{label}</span>
  </div>
);

export const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * A text whole: its first `shown` characters, and the rest (when there is more) folded under a
 * summary saying how much, opened without a script. Where a person approves a record, nothing of
 * it may be off the page (review.tsx).
 */
export function Folded({ text, shown }: { text: string; shown: number }) {
  if (text.length <= shown) return <>{text}</>;
  const rest = text.slice(shown);
  return (
    <>
      {text.slice(0, shown)}
      <details class="more">
        <summary>{`… and ${rest.length.toLocaleString('en')} more characters`}</summary>
        {rest}
      </details>
    </>
  );
}

/**
 * A mark drawn in CSS (assets/style.ts), so it shows without a symbol or emoji font: ok (a tick),
 * bad (a cross), orb (what stands for 🔮 in a brief's receipt).
 */
export const Mark = ({ kind }: { kind: 'ok' | 'bad' | 'orb' }) => <span class={`mark mark-${kind}`} aria-hidden="true"></span>;

/** An emoji: one shown as a picture by default, or any pictograph followed by VS16 (✍️); © and ™ stay text. */
const EMOJI = /(\p{Emoji_Presentation}\uFE0F?|\p{Extended_Pictographic}\uFE0F)/u;

/**
 * Stored text (a brief's receipt, "[🔮 Doco] briefed: …") with its emoji taken out: 🔮 becomes the
 * orb mark, any other emoji is dropped. The text stays as stored for agents, which read it.
 */
export function EmojiFree({ text }: { text: string }) {
  const parts = text.split(EMOJI);
  return <>{parts.map((part, i) => (i % 2 === 0 ? part : part.startsWith('\u{1F52E}') ? <Mark kind="orb" /> : null))}</>;
}

/** A table's head: one column header a name, the last an unlabelled "action" column when `action`. */
export function TableHead({ columns, action }: { columns: string[]; action?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col">{c}</th>
        ))}
        {action ? (
          <th scope="col">
            <span class="muted">action</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}
