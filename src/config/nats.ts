// The NATS edge's environment (DOCO_NATS_*): which servers, how to authenticate, TLS, the
// subjects to follow (docs/docs-pack.md's names by default) and the reconnect backoff. Parsed with the
// rest of the environment by src/config/environment.ts; files named here are read when the edge starts.
import * as v from 'valibot';

export const DEFAULT_SUBJECTS = {
  register: 'service.register',
  unregister: 'service.unregister',
  gatewayOnline: 'gateway_online',
} as const;

export type NatsSubjects = { [K in keyof typeof DEFAULT_SUBJECTS]: string };

export type NatsAuth =
  { kind: 'none' } | { kind: 'creds'; file: string } | { kind: 'user'; user: string; password: string } | { kind: 'token'; token: string };

export interface NatsTls {
  caFile: string | undefined;
  certFile: string | undefined;
  keyFile: string | undefined;
}

export interface NatsConfig {
  servers: string[];
  auth: NatsAuth;
  /** Set when any DOCO_NATS_TLS_* is, or a server is tls://: the connection must then be TLS. */
  tls: NatsTls | undefined;
  subjects: NatsSubjects;
  /** The first wait between connection attempts, and the most any wait grows to. */
  backoff: { minMs: number; maxMs: number };
}

// No user:password@ in the URL: credentials go in their own variables, which are never logged.
const SERVER = /^((nats|tls):\/\/)?[^\s,/@]+$/;
/** A subject: dot-separated tokens without whitespace; `*` and `>` wildcards pass through. */
const subject = v.pipe(v.string(), v.regex(/^[^\s.]+(\.[^\s.]+)*$/, 'must be a NATS subject such as service.register'));
const file = v.pipe(v.string(), v.minLength(1));
const ms = v.pipe(
  v.string(),
  v.regex(/^\d+$/, 'must be a whole number of milliseconds'),
  v.transform(Number),
  v.minValue(1, 'must be at least 1'),
);

export const NATS_ENV = {
  // Checked in natsConfigFrom, so a URL holding a password is never quoted back.
  DOCO_NATS_URL: v.optional(v.string()),
  DOCO_NATS_CREDS: v.optional(file),
  DOCO_NATS_USER: v.optional(v.pipe(v.string(), v.minLength(1))),
  // Secrets: any text, so a config error never quotes one back.
  DOCO_NATS_PASSWORD: v.optional(v.string()),
  DOCO_NATS_TOKEN: v.optional(v.string()),
  DOCO_NATS_TLS_CA: v.optional(file),
  DOCO_NATS_TLS_CERT: v.optional(file),
  DOCO_NATS_TLS_KEY: v.optional(file),
  DOCO_NATS_SUBJECT_REGISTER: v.optional(subject, DEFAULT_SUBJECTS.register),
  DOCO_NATS_SUBJECT_UNREGISTER: v.optional(subject, DEFAULT_SUBJECTS.unregister),
  DOCO_NATS_SUBJECT_GATEWAY_ONLINE: v.optional(subject, DEFAULT_SUBJECTS.gatewayOnline),
  DOCO_NATS_BACKOFF_MIN_MS: v.optional(ms, '250'),
  DOCO_NATS_BACKOFF_MAX_MS: v.optional(ms, '30000'),
};

type NatsEnv = v.InferOutput<v.ObjectSchema<typeof NATS_ENV, undefined>>;

/** The edge's config, or the problems (one sentence each) that rule it out; undefined without DOCO_NATS_URL. */
export function natsConfigFrom(e: NatsEnv): { config: NatsConfig | undefined; problems: string[] } {
  const problems: string[] = [];
  const methods = [
    e.DOCO_NATS_CREDS && 'DOCO_NATS_CREDS',
    (e.DOCO_NATS_USER || e.DOCO_NATS_PASSWORD) && 'DOCO_NATS_USER/PASSWORD',
    e.DOCO_NATS_TOKEN && 'DOCO_NATS_TOKEN',
  ].filter(Boolean);
  if (methods.length > 1) problems.push(`DOCO_NATS_*: set one way to authenticate, not ${methods.join(' and ')}`);
  if (!!e.DOCO_NATS_USER !== !!e.DOCO_NATS_PASSWORD) problems.push('DOCO_NATS_USER and DOCO_NATS_PASSWORD: set both or neither');
  if (!!e.DOCO_NATS_TLS_CERT !== !!e.DOCO_NATS_TLS_KEY)
    problems.push('DOCO_NATS_TLS_CERT and DOCO_NATS_TLS_KEY: set both or neither (a client certificate needs its key)');
  if (e.DOCO_NATS_BACKOFF_MIN_MS > e.DOCO_NATS_BACKOFF_MAX_MS)
    problems.push('DOCO_NATS_BACKOFF_MIN_MS: must not exceed DOCO_NATS_BACKOFF_MAX_MS');
  const subjects = {
    register: e.DOCO_NATS_SUBJECT_REGISTER,
    unregister: e.DOCO_NATS_SUBJECT_UNREGISTER,
    gatewayOnline: e.DOCO_NATS_SUBJECT_GATEWAY_ONLINE,
  };
  if (new Set(Object.values(subjects)).size < 3) problems.push('DOCO_NATS_SUBJECT_*: the three subjects must differ');
  const servers = e.DOCO_NATS_URL?.split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (servers && (!servers.length || !servers.every((x) => SERVER.test(x)))) {
    problems.push(
      'DOCO_NATS_URL: must be nats://host:port or tls://host:port (comma-separated for several; credentials go in DOCO_NATS_USER/PASSWORD, TOKEN or CREDS, not the URL)',
    );
  }
  if (!servers) {
    const stray = Object.keys(e).filter(
      (k) => k !== 'DOCO_NATS_URL' && /^DOCO_NATS_(CREDS|USER|PASSWORD|TOKEN|TLS_)/.test(k) && e[k as keyof NatsEnv] !== undefined,
    );
    if (stray.length)
      problems.push(`${stray.join(', ')}: set without DOCO_NATS_URL, so nothing would use ${stray.length > 1 ? 'them' : 'it'}`);
    return { config: undefined, problems };
  }
  if (problems.length) return { config: undefined, problems };
  const auth: NatsAuth = e.DOCO_NATS_CREDS
    ? { kind: 'creds', file: e.DOCO_NATS_CREDS }
    : e.DOCO_NATS_USER
      ? { kind: 'user', user: e.DOCO_NATS_USER, password: e.DOCO_NATS_PASSWORD! }
      : e.DOCO_NATS_TOKEN
        ? { kind: 'token', token: e.DOCO_NATS_TOKEN }
        : { kind: 'none' };
  const wantsTls = !!(e.DOCO_NATS_TLS_CA || e.DOCO_NATS_TLS_CERT) || servers.some((s) => s.startsWith('tls://'));
  return {
    config: {
      servers,
      auth,
      tls: wantsTls ? { caFile: e.DOCO_NATS_TLS_CA, certFile: e.DOCO_NATS_TLS_CERT, keyFile: e.DOCO_NATS_TLS_KEY } : undefined,
      subjects,
      backoff: { minMs: e.DOCO_NATS_BACKOFF_MIN_MS, maxMs: e.DOCO_NATS_BACKOFF_MAX_MS },
    },
    problems,
  };
}
