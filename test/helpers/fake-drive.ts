// A loopback fake of Google's token endpoint and the Drive v3 API, speaking the documented
// formats (docs/connectors.md, Drive; developers.google.com/drive/api/reference/rest/v3). What it stands for:
// - the token endpoint: POST form grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer with an
//   RS256 assertion, verified here with the test key's public half (iss = client_email,
//   aud = this endpoint's URL, scope drive.readonly, exp − iat ≤ 3600) → {access_token,
//   expires_in: 3599, token_type: "Bearer"}; anything else 400 {"error":"invalid_grant"};
// - every API call wants `Authorization: Bearer <an issued token>`, else 401;
// - changes/startPageToken, and changes?pageToken=… answering the changes since that token,
//   nextPageToken on every page but the last, which carries newStartPageToken; shared-drive
//   items only with supportsAllDrives and includeItemsFromAllDrives (else refused here, so a
//   client that forgets them is caught);
// - files.list with q = "'<folder>' in parents and trashed = false" or "trashed = false",
//   pageSize and nextPageToken;
// - files/{id}/export?mimeType=text/markdown|text/plain for Google Docs (Markdown refusable, as
//   older Docs exports are), files/{id}?alt=media for stored files;
// - quota errors on demand: 403 usageLimits/userRateLimitExceeded, 403 rateLimitExceeded, 429.
// Every file change (a new version) is one entry in the change log. It shares no code with the
// client it tests.
import { createVerify, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { takeFailure } from './failure-queue.js';
import { JsonServer, type JsonAnswer, type JsonServerRequest } from './json-server.js';

export const GOOGLE_DOC = 'application/vnd.google-apps.document';
export const FOLDER_MIME = 'application/vnd.google-apps.folder';

export interface FakeDriveFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: string;
  version: number;
  modifiedTime: string;
  trashed: boolean;
}

/** A service account key for tests: the JSON Google hands out, and the public half for the fake. */
export function serviceAccountKey() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const json = {
    type: 'service_account',
    project_id: 'doco-test',
    private_key_id: 'kid-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'doco-sync@doco-test.iam.gserviceaccount.com',
    client_id: '1',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  return { json: JSON.stringify(json), publicKey, clientEmail: json.client_email };
}

export class FakeDrive {
  readonly files = new Map<string, FakeDriveFile>();
  readonly requests: { method: string; path: string; status: number }[] = [];
  /** Served ahead of the real answer (quota errors, 5xx): see failure-queue.ts. */
  readonly failures: { status: number; reason: string; headers?: Record<string, string>; path?: string; skip?: number }[] = [];
  /** Drive may answer fewer items than pageSize before the end: pages are at most this long. */
  pageSizeCap = 1000;
  /** Stands for a misbehaving API, or a proxy replaying an answer: a change page names its own token as the next. */
  replayChanges = false;
  /** The change log: one entry per new version, trash or removal; a page token is an index into it. */
  readonly log: { fileId: string; removed: boolean }[] = [];
  tokensIssued = 0;
  markdownExport = true;
  origin = '';
  private issued = new Set<string>();
  private server: JsonServer;
  private clock = Date.UTC(2026, 4, 1, 9, 0, 0);

  constructor(private readonly key: { publicKey: KeyObject; clientEmail: string }) {
    this.server = new JsonServer((req) => {
      const answer = this.handle(req);
      this.requests.push({ method: req.method, path: req.url, status: typeof answer === 'object' ? answer.status : 0 });
      return answer;
    });
  }

  get tokenUrl() {
    return `${this.origin}/token`;
  }

  async start() {
    this.origin = await this.server.start();
    return this.origin;
  }

  stop() {
    return this.server.stop();
  }

  private touch(f: FakeDriveFile) {
    f.version++;
    this.clock += 60_000;
    f.modifiedTime = new Date(this.clock).toISOString();
    this.log.push({ fileId: f.id, removed: false });
  }

  add(f: { name: string; mimeType: string; parents: string[]; content?: string; id?: string }): FakeDriveFile {
    const file: FakeDriveFile = {
      id: f.id ?? `f${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      name: f.name,
      mimeType: f.mimeType,
      parents: f.parents,
      content: f.content ?? '',
      version: 0,
      modifiedTime: '',
      trashed: false,
    };
    this.files.set(file.id, file);
    this.touch(file);
    return file;
  }

  edit(id: string, content: string) {
    const f = this.files.get(id)!;
    f.content = content;
    this.touch(f);
  }

  move(id: string, parents: string[]) {
    const f = this.files.get(id)!;
    f.parents = parents;
    this.touch(f);
  }

  trash(id: string) {
    const f = this.files.get(id)!;
    f.trashed = true;
    this.touch(f);
  }

  remove(id: string) {
    this.files.delete(id);
    this.log.push({ fileId: id, removed: true });
  }

  private fileJson(f: FakeDriveFile) {
    return {
      id: f.id,
      name: f.name,
      mimeType: f.mimeType,
      parents: f.parents,
      trashed: f.trashed,
      version: String(f.version),
      modifiedTime: f.modifiedTime,
      webViewLink:
        f.mimeType === GOOGLE_DOC
          ? `https://docs.google.com/document/d/${f.id}/edit?usp=drivesdk`
          : `https://drive.google.com/file/d/${f.id}/view?usp=drivesdk`,
    };
  }

  private handle(req: JsonServerRequest): JsonAnswer {
    const url = new URL(req.url, this.origin);
    if (url.pathname === '/token' && req.method === 'POST') return this.token(req);
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!this.issued.has(bearer)) return googleError(401, 'authError', 'Request had invalid authentication credentials.');
    const failure = takeFailure(this.failures, url.pathname);
    if (failure) return { ...googleError(failure.status, failure.reason, 'fake failure'), headers: failure.headers ?? {} };
    const q = url.searchParams;
    if (url.pathname === '/drive/v3/changes/startPageToken')
      return { status: 200, json: { kind: 'drive#startPageToken', startPageToken: String(this.log.length + 1) } };
    if (url.pathname === '/drive/v3/changes') return this.changes(q);
    if (url.pathname === '/drive/v3/files') return this.list(q);
    const exp = url.pathname.match(/^\/drive\/v3\/files\/([^/]+)\/export$/);
    if (exp) return this.export(decodeURIComponent(exp[1]!), q.get('mimeType'));
    const one = url.pathname.match(/^\/drive\/v3\/files\/([^/]+)$/);
    if (one && q.get('alt') === 'media') {
      const f = this.files.get(decodeURIComponent(one[1]!));
      if (!f) return googleError(404, 'notFound', 'File not found.');
      if (f.mimeType.startsWith('application/vnd.google-apps.'))
        return googleError(
          403,
          'fileNotDownloadable',
          'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
        );
      return { status: 200, json: null, text: f.content };
    }
    return googleError(404, 'notFound', 'Not Found');
  }

  private token(req: JsonServerRequest): JsonAnswer {
    const form = new URLSearchParams(req.raw);
    const jwt = form.get('assertion') ?? '';
    const [h, c, s] = jwt.split('.');
    const bad = (why: string): JsonAnswer => ({ status: 400, json: { error: 'invalid_grant', error_description: why } });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || !h || !c || !s) return bad('not a JWT bearer grant');
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string };
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as {
      iss?: string;
      aud?: string;
      scope?: string;
      iat: number;
      exp: number;
    };
    if (header.alg !== 'RS256' || !createVerify('RSA-SHA256').update(`${h}.${c}`).verify(this.key.publicKey, Buffer.from(s, 'base64url')))
      return bad('Invalid JWT Signature.');
    const now = Math.floor(Date.now() / 1000);
    if (
      claims.iss !== this.key.clientEmail ||
      claims.aud !== this.tokenUrl ||
      !claims.scope?.split(' ').includes('https://www.googleapis.com/auth/drive.readonly')
    )
      return bad('wrong iss, aud or scope');
    if (claims.exp - claims.iat > 3600 || claims.exp <= now || claims.iat > now + 60)
      return bad('Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    const token = `ya29.fake-${++this.tokensIssued}`;
    this.issued.add(token);
    return { status: 200, json: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
  }

  /** Accepts a token handed out elsewhere (GOOGLE_ACCESS_TOKEN). */
  accept(token: string) {
    this.issued.add(token);
  }

  /** Forgets every issued token: the next API call is a 401, as after a revocation. */
  revokeTokens() {
    this.issued.clear();
  }

  private changes(q: URLSearchParams): JsonAnswer {
    if (q.get('supportsAllDrives') !== 'true' || q.get('includeItemsFromAllDrives') !== 'true')
      return googleError(400, 'badRequest', 'the fake wants shared drives included');
    const from = Number(q.get('pageToken')) - 1;
    if (!Number.isInteger(from) || from < 0 || from > this.log.length) return googleError(400, 'invalid', 'Invalid Value: pageToken');
    const size = Math.min(this.pageSizeCap, Number(q.get('pageSize') ?? '100'));
    const slice = this.log.slice(from, from + size);
    const changes = slice.map((e) => {
      const f = this.files.get(e.fileId);
      return {
        kind: 'drive#change',
        changeType: 'file',
        removed: e.removed || !f,
        fileId: e.fileId,
        time: new Date(this.clock).toISOString(),
        ...(f && !e.removed ? { file: this.fileJson(f) } : {}),
      };
    });
    const more = from + size < this.log.length;
    return {
      status: 200,
      json: {
        kind: 'drive#changeList',
        changes,
        ...(this.replayChanges
          ? { nextPageToken: q.get('pageToken') }
          : more
            ? { nextPageToken: String(from + size + 1) }
            : { newStartPageToken: String(this.log.length + 1) }),
      },
    };
  }

  private list(q: URLSearchParams): JsonAnswer {
    const query = q.get('q') ?? '';
    const inFolder = query.match(/^'([^']+)' in parents and trashed = false$/);
    if (!inFolder && query !== 'trashed = false') return googleError(400, 'invalid', `the fake does not read q=${query}`);
    const all = [...this.files.values()]
      .filter((f) => !f.trashed && (!inFolder || f.parents.includes(inFolder[1]!)))
      .sort((a, b) => a.id.localeCompare(b.id));
    const size = Math.min(this.pageSizeCap, Number(q.get('pageSize') ?? '100'));
    const from = Number(q.get('pageToken') ?? '0');
    const next = from + size < all.length ? String(from + size) : undefined;
    return {
      status: 200,
      json: {
        kind: 'drive#fileList',
        files: all.slice(from, from + size).map((f) => this.fileJson(f)),
        ...(next ? { nextPageToken: next } : {}),
      },
    };
  }

  private export(id: string, mimeType: string | null): JsonAnswer {
    const f = this.files.get(id);
    if (!f) return googleError(404, 'notFound', 'File not found.');
    if (f.mimeType !== GOOGLE_DOC) return googleError(403, 'fileNotExportable', 'Export only supports Docs Editors files.');
    if (mimeType === 'text/markdown' && this.markdownExport) return { status: 200, json: null, text: f.content };
    if (mimeType === 'text/plain') return { status: 200, json: null, text: f.content.replace(/^#+ /gm, '').replace(/\*\*/g, '') };
    return googleError(400, 'badRequest', 'The requested conversion is not supported.');
  }
}

function googleError(code: number, reason: string, message: string): JsonAnswer & object {
  return {
    status: code,
    json: {
      error: { code, message, errors: [{ domain: code === 403 && /RateLimit/.test(reason) ? 'usageLimits' : 'global', reason, message }] },
    },
  };
}
