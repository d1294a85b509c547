// A loopback fake of the GitHub REST API, speaking the documented formats (docs/connectors.md, GitHub):
// it verifies the app JWT (RS256, with the test's public key; exp − iat ≤ 600) before issuing an
// installation token, wants that token on every repository call, lists issues (with PRs, which
// carry a pull_request key) `since` an updated_at, pulls by updated desc, a PR's files and
// reviews, issue comments and review comments `since` an updated_at,
// paginates with Link rel="next", answers 304 to a matching If-None-Match, and rate-limits or
// fails on demand. It shares no code with the client it checks.
import { createHash, createVerify, type KeyObject } from 'node:crypto';
import { JsonServer, type JsonAnswer, type JsonServerRequest } from './json-server.js';

export interface FakePull {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  updated_at: string;
  head: { ref: string };
  base: { ref: string };
  files: string[];
}

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: 'open' | 'closed';
  updated_at: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  login: string;
  updated_at: string;
}

export interface FakeReview {
  id: number;
  pull: number;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED';
  body: string;
  login: string;
  submitted_at?: string;
}

export interface FakeReviewComment {
  id: number;
  pull: number;
  path: string;
  body: string;
  login: string;
  updated_at: string;
}

export interface FakeGithubOptions {
  publicKey: KeyObject;
  appId: string;
  installationId: number;
}

export class FakeGithub {
  readonly requests: { method: string; path: string; ifNoneMatch?: string; status: number }[] = [];
  readonly pulls = new Map<number, FakePull>();
  readonly issues = new Map<number, FakeIssue>();
  readonly comments = new Map<number, FakeComment>();
  /** `GET /repos/{repo}/compare/{base}...{head}` answers, keyed `base...head`: the changed files with their patches. */
  readonly compares = new Map<string, { filename: string; status: string; patch?: string }[]>();
  readonly reviews = new Map<number, FakeReview>();
  readonly reviewComments = new Map<number, FakeReviewComment>();
  /** Answers served ahead of the real one, to any repository call: 429s, 403s, 503s. */
  readonly failures: { status: number; headers?: Record<string, string>; message: string }[] = [];
  /** The most items a page holds, whatever per_page asks (GitHub's is 100): smaller makes walks of several pages. */
  maxPerPage = 100;
  /** Stands for a misbehaving API, or a proxy replaying an answer: page 2 links back to itself as the next. */
  replayLinks = false;
  /** Paths (as `/repos/…/pulls/9/files`) whose next request is held unanswered, once each: a job caught mid-call. */
  readonly holdOnce = new Set<string>();
  tokensIssued = 0;
  private server: JsonServer;
  origin = '';

  constructor(
    private readonly opts: FakeGithubOptions,
    readonly repo = 'octo-org/billing',
  ) {
    this.server = new JsonServer((req) => {
      const answer = this.handle(req);
      const status = typeof answer === 'object' ? answer.status : 0;
      this.requests.push({
        method: req.method,
        path: req.url,
        ...(req.headers['if-none-match'] ? { ifNoneMatch: String(req.headers['if-none-match']) } : {}),
        status,
      });
      return answer;
    });
  }

  async start(): Promise<string> {
    this.origin = await this.server.start();
    return this.origin;
  }

  stop() {
    return this.server.stop();
  }

  htmlUrl(kind: 'pull' | 'issues', n: number) {
    return `https://github.com/${this.repo}/${kind}/${n}`;
  }

  pullJson(p: FakePull) {
    return {
      number: p.number,
      title: p.title,
      body: p.body,
      state: p.state,
      merged: p.merged,
      merged_at: p.merged ? p.updated_at : null,
      draft: false,
      updated_at: p.updated_at,
      html_url: this.htmlUrl('pull', p.number),
      head: p.head,
      base: p.base,
      labels: [],
      user: { login: 'dev' },
    };
  }

  private issueJson(i: FakeIssue) {
    return {
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      updated_at: i.updated_at,
      html_url: this.htmlUrl('issues', i.number),
      labels: [{ name: 'bug' }],
      user: { login: 'dev' },
    };
  }

  private handle(req: JsonServerRequest): JsonAnswer {
    const url = new URL(req.url, this.origin);
    const tokenPath = url.pathname.match(/^\/app\/installations\/(\d+)\/access_tokens$/);
    if (tokenPath && req.method === 'POST') return this.issueToken(req, Number(tokenPath[1]));
    if (req.headers.authorization !== `token ${this.token()}`) return { status: 401, json: { message: 'Bad credentials' } };
    if (req.headers['x-github-api-version'] !== '2022-11-28' || !req.headers['user-agent'])
      return { status: 400, json: { message: 'missing headers' } };
    if (this.holdOnce.delete(url.pathname)) return 'hang';
    const failure = this.failures.shift();
    if (failure) return { status: failure.status, json: { message: failure.message }, headers: failure.headers ?? {} };
    const base = `/repos/${this.repo}`;
    if (url.pathname === `${base}/issues`) return this.list(req, url, this.issueList(url));
    if (url.pathname === `${base}/issues/comments`) return this.list(req, url, this.commentList(url));
    if (url.pathname === `${base}/pulls`) return this.list(req, url, this.pullList(url));
    if (url.pathname === `${base}/pulls/comments`) return this.list(req, url, this.reviewCommentList(url));
    const reviews = url.pathname.match(new RegExp(`^${base}/pulls/(\\d+)/reviews$`));
    if (reviews) {
      const n = Number(reviews[1]);
      if (!this.pulls.has(n)) return { status: 404, json: { message: 'Not Found' } };
      const list = [...this.reviews.values()].filter((r) => r.pull === n).sort((a, b) => a.id - b.id);
      return this.list(
        req,
        url,
        list.map((r) => ({
          id: r.id,
          state: r.state,
          body: r.body,
          user: { login: r.login },
          ...(r.submitted_at ? { submitted_at: r.submitted_at } : {}),
          pull_request_url: `${this.origin}${base}/pulls/${n}`,
        })),
      );
    }
    const files = url.pathname.match(new RegExp(`^${base}/pulls/(\\d+)/files$`));
    if (files) {
      const pr = this.pulls.get(Number(files[1]));
      if (!pr) return { status: 404, json: { message: 'Not Found' } };
      return this.list(
        req,
        url,
        pr.files.map((filename) => ({ filename, status: 'modified', additions: 1, deletions: 0 })),
      );
    }
    const compare = url.pathname.match(new RegExp(`^${base}/compare/([^/]+)$`));
    if (compare) {
      const files = this.compares.get(decodeURIComponent(compare[1]!));
      return files ? { status: 200, json: { status: 'ahead', files } } : { status: 404, json: { message: 'Not Found' } };
    }
    const one = url.pathname.match(new RegExp(`^${base}/pulls/(\\d+)$`));
    if (one) {
      const pr = this.pulls.get(Number(one[1]));
      return pr ? { status: 200, json: this.pullJson(pr) } : { status: 404, json: { message: 'Not Found' } };
    }
    return { status: 404, json: { message: 'Not Found' } };
  }

  token() {
    return `ghs_fake${this.opts.installationId}TokenForTests`;
  }

  private issueToken(req: JsonServerRequest, installation: number): JsonAnswer {
    const jwt = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const [h, c, s] = jwt.split('.');
    if (!h || !c || !s) return { status: 401, json: { message: 'A JSON web token could not be decoded' } };
    const verified = createVerify('RSA-SHA256').update(`${h}.${c}`).verify(this.opts.publicKey, Buffer.from(s, 'base64url'));
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string };
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as { iat: number; exp: number; iss: string };
    const now = Math.floor(Date.now() / 1000);
    if (!verified || header.alg !== 'RS256') return { status: 401, json: { message: 'signature does not verify' } };
    if (String(claims.iss) !== this.opts.appId) return { status: 401, json: { message: 'wrong issuer' } };
    if (claims.exp - claims.iat > 600 || claims.exp <= now || claims.iat > now)
      return { status: 401, json: { message: "'Expiration time' claim ('exp') is too far in the future" } };
    if (installation !== this.opts.installationId) return { status: 404, json: { message: 'Not Found' } };
    this.tokensIssued++;
    return {
      status: 201,
      json: {
        token: this.token(),
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        permissions: { pull_requests: 'read', issues: 'read' },
      },
    };
  }

  private issueList(url: URL) {
    const since = url.searchParams.get('since');
    const all = [
      ...[...this.issues.values()].map((i) => ({ updated: i.updated_at, json: this.issueJson(i) as Record<string, unknown> })),
      ...[...this.pulls.values()].map((p) => ({
        updated: p.updated_at,
        json: { ...this.issueJson({ ...p }), html_url: this.htmlUrl('pull', p.number), pull_request: { url: 'x' } },
      })),
    ];
    return all
      .filter((x) => !since || Date.parse(x.updated) >= Date.parse(since))
      .sort((a, b) => Date.parse(a.updated) - Date.parse(b.updated) || Number(a.json.number) - Number(b.json.number))
      .map((x) => x.json);
  }

  private commentList(url: URL) {
    const since = url.searchParams.get('since');
    return [...this.comments.values()]
      .filter((c) => !since || Date.parse(c.updated_at) >= Date.parse(since))
      .sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || a.id - b.id)
      .map((c) => ({
        id: c.id,
        body: c.body,
        user: { login: c.login },
        updated_at: c.updated_at,
        issue_url: `${this.origin}/repos/${this.repo}/issues/${c.issue}`,
      }));
  }

  private reviewCommentList(url: URL) {
    const since = url.searchParams.get('since');
    return [...this.reviewComments.values()]
      .filter((c) => !since || Date.parse(c.updated_at) >= Date.parse(since))
      .sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || a.id - b.id)
      .map((c) => ({
        id: c.id,
        path: c.path,
        body: c.body,
        user: { login: c.login },
        updated_at: c.updated_at,
        pull_request_url: `${this.origin}/repos/${this.repo}/pulls/${c.pull}`,
      }));
  }

  private pullList(url: URL) {
    if (url.searchParams.get('sort') !== 'updated' || url.searchParams.get('direction') !== 'desc')
      throw new Error('the fake serves pulls by updated desc only');
    return [...this.pulls.values()]
      .sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at) || b.number - a.number)
      .map((p) => this.pullJson(p));
  }

  /** One page of `items`, with Link rel="next" while more remain and an ETag over the page. */
  private list(req: JsonServerRequest, url: URL, items: unknown[]): JsonAnswer {
    const perPage = Math.min(this.maxPerPage, Number(url.searchParams.get('per_page') ?? '30'));
    const page = Number(url.searchParams.get('page') ?? '1');
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const etag = `"${createHash('sha1').update(JSON.stringify(slice)).digest('hex')}"`;
    const headers: Record<string, string> = {
      etag,
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
    };
    if (page * perPage < items.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(this.replayLinks && page >= 2 ? page : page + 1));
      headers.link = `<${this.origin}${next.pathname}${next.search}>; rel="next", <${this.origin}${url.pathname}>; rel="first"`;
    }
    if (req.headers['if-none-match'] === etag) return { status: 304, json: undefined, headers };
    return { status: 200, json: slice, headers };
  }
}
