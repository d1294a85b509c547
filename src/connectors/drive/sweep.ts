// The minute job (docs/connectors.md, Drive). First sync: take the start page token, then list what is
// there (the configured folders and their subfolders, or everything the account sees), and save
// the token once the listing has committed, so nothing changed meanwhile is lost. Every later run
// reads changes from the saved token, page by page, each page's next token saved in the
// transaction that writes that page. A file's content is read only when its version moved
// (dedup key: file id + version); removed or trashed files retire their records; files that are
// neither Docs nor .md/.txt are listed as skipped in the connector's state.
import { addReports, emptyReport, retireItem, writeItems, type ItemContent, type ItemScope, type ItemsReport } from '../items.js';
import type { ConnectorDeps, SweepReport } from '../kind.js';
import { pageCursors } from '../page-cursors.js';
import { knownItems } from '../scope.js';
import { readState, type ConnectorRow } from '../store.js';
import type { DriveClient, DriveFile } from './client.js';
import { fileKind, fileRecord } from './records.js';
import { driveScope, requireDrive } from './scope.js';

/** Skipped files shown in the status, at most. */
export const SKIPPED_SHOWN = 1_000;

interface Skipped {
  name: string;
  mime_type: string;
}
interface Entry {
  fileId: string;
  removed: boolean;
  file: DriveFile | undefined;
}

class DriveRun {
  report: ItemsReport = emptyReport();
  notRead = 0;
  readonly scoped: boolean;

  constructor(
    private readonly deps: ConnectorDeps,
    private readonly client: DriveClient,
    private readonly scope: ItemScope,
    readonly folders: Set<string>,
    readonly skipped: Record<string, Skipped>,
    configured: string[],
  ) {
    this.scoped = configured.length > 0;
    for (const f of configured) folders.add(f);
  }

  private inScope(f: DriveFile) {
    return !this.scoped || (f.parents ?? []).some((p) => this.folders.has(p));
  }

  private skip(f: DriveFile) {
    if (f.id in this.skipped || Object.keys(this.skipped).length < SKIPPED_SHOWN)
      this.skipped[f.id] = { name: f.name, mime_type: f.mimeType };
  }

  private async retire(id: string, summary: string) {
    delete this.skipped[id];
    this.report = addReports(this.report, await retireItem(this.deps.sql, this.scope, id, summary));
  }

  /** Applies one page of files or changes, then commits its records with `state` (the page's cursor). */
  async apply(entries: Entry[], summary: string, state: Record<string, unknown> | undefined): Promise<void> {
    const known = await knownItems(
      this.deps,
      this.scope,
      entries.map((e) => e.fileId),
    );
    const records: ItemContent[] = [];
    for (const { fileId, removed, file } of entries) {
      if (removed || !file || file.trashed) {
        if (known.has(fileId) || fileId in this.skipped) await this.retire(fileId, summary);
        continue;
      }
      const kind = fileKind(file);
      if (kind === 'folder') {
        if (this.scoped && this.inScope(file)) this.folders.add(file.id);
        continue;
      }
      if (!this.inScope(file)) {
        if (known.has(fileId) || fileId in this.skipped) await this.retire(fileId, `${summary}: moved out of the connector's folders`);
        continue;
      }
      if (kind === 'other') {
        this.skip(file);
        continue;
      }
      delete this.skipped[fileId];
      const k = known.get(fileId);
      if (k && (k.retired || (k.meta.version != null && k.meta.version === (file.version ?? null)))) {
        this.notRead++;
        continue;
      }
      records.push(fileRecord(file, kind === 'doc' ? await this.client.exportDoc(file.id) : await this.client.download(file.id)));
    }
    if (records.length || state)
      this.report = addReports(this.report, await writeItems(this.deps.sql, this.scope, records, { summary, ...(state ? { state } : {}) }));
  }

  stateWith(pageToken: string) {
    return { page_token: pageToken, folder_ids: [...this.folders].sort(), skipped: this.skipped };
  }
}

const quote = (id: string) => `'${id.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The first sync: the start token first, then the listing, then the token saved with the last page. */
async function firstSync(run: DriveRun, client: DriveClient): Promise<void> {
  const start = await client.startPageToken();
  const queue: (string | undefined)[] = run.scoped ? [...run.folders] : [undefined];
  for (let i = 0; i < queue.length; i++) {
    const folder = queue[i];
    const q = folder ? `${quote(folder)} in parents and trashed = false` : 'trashed = false';
    let pageToken: string | undefined;
    const cursors = pageCursors(`drive files ${q}`);
    do {
      const page = await client.listFiles(q, pageToken);
      const before = run.folders.size;
      await run.apply(
        page.files.map((f) => ({ fileId: f.id, removed: false, file: f })),
        'drive first sync',
        undefined,
      );
      // Subfolders found on this page are listed in turn.
      if (run.folders.size > before) for (const f of run.folders) if (!queue.includes(f)) queue.push(f);
      pageToken = page.nextPageToken === undefined ? undefined : cursors.next(page.nextPageToken);
    } while (pageToken);
  }
  await run.apply([], 'drive first sync', run.stateWith(start));
}

/** Every later run: the changes since the saved token, each page committed with its next token. */
async function followChanges(run: DriveRun, client: DriveClient, saved: string, savedState: string): Promise<void> {
  let token = saved;
  const cursors = pageCursors('drive changes', saved);
  for (;;) {
    const page = await client.changes(token);
    const next = page.nextPageToken ?? page.newStartPageToken;
    if (!next) throw new Error('drive changes: the answer had neither nextPageToken nor newStartPageToken');
    const entries = page.changes.map((c) => ({ fileId: c.fileId, removed: c.removed === true, file: c.file }));
    // Nothing changed and the token stands: write nothing at all.
    const state = run.stateWith(next);
    const dirty = next !== token || JSON.stringify(state) !== savedState;
    await run.apply(entries, 'drive changes', dirty || entries.length ? state : undefined);
    if (!page.nextPageToken) return;
    token = cursors.next(next);
  }
}

export async function sweepDrive(deps: ConnectorDeps, connector: ConnectorRow): Promise<SweepReport> {
  const client = requireDrive(deps);
  const scope = await driveScope(deps, connector);
  const state = await readState(deps.sql, connector.id);
  const configured = Array.isArray(connector.config.folders) ? connector.config.folders.map(String) : [];
  const folders = new Set(Array.isArray(state.folder_ids) ? state.folder_ids.map(String) : []);
  const skipped = state.skipped && typeof state.skipped === 'object' ? { ...(state.skipped as Record<string, Skipped>) } : {};
  const run = new DriveRun(deps, client, scope, folders, skipped, configured);
  if (typeof state.page_token === 'string')
    await followChanges(run, client, state.page_token, JSON.stringify(run.stateWith(state.page_token)));
  else await firstSync(run, client);
  return { items: run.report, notModified: run.notRead };
}
