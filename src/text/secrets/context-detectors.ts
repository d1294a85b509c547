// Credentials that only their context gives away: a value assigned to a password-like key, a
// password inside a URL, an AWS secret key next to its name, a long token after "Bearer". The
// value must look real: templates, env references, masks and example words pass (placeholders.ts).
import type { Detector, SecretKind } from './detector.js';
import { isCodeOrPath, isExampleHost, isPlaceholderValue, isStandInUser } from './placeholders.js';
import { charClasses, looksRandom, shannonEntropy } from './randomness.js';

/** Keys whose value is a secret. They must end the key: `secretName:` or `password_hash:` are not. */
const SECRET_KEY =
  '(password|passwd|passphrase|pwd|secret|secret[_-]?key|api[_-]?key|(?:access|auth|api|bearer|refresh|session)[_-]?token)';
/**
 * The generic endings of a secret's name, after a separator that follows a letter or digit: `DB_PASS`, `DISCORD_TOKEN`,
 * `SIGNING_KEY` — not `bypass`, `mytoken`, `--token` or a bare `key:`. A pattern of their own, starting at the
 * separator: folded into SECRET_KEY they would have the engine stop at every `_` and `-` of a text.
 */
const GENERIC_KEY = '([_-](?:pass|token|key))';
const AWS_SECRET_KEY = '(?:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key)';
/** `=`, `:`, `:=` or `=>`, on the key's own line. */
const ASSIGN = `["']?[ \\t]*(?::=|=>|[:=])[ \\t]*`;
/** A quoted value, or an unquoted one up to a delimiter. */
const VALUE = `(?:"([^"\\n]{1,256})"|'([^'\\n]{1,256})'|\`([^\`\\n]{1,256})\`|([^\\s"'\`,;&()<>{}\\[\\]]{1,256}))`;

const SECRET_KEY_NAME = new RegExp(`${SECRET_KEY}$`, 'i');
const GENERIC_KEY_NAME = new RegExp(`[A-Za-z0-9]${GENERIC_KEY}$`, 'i');
const AWS_SECRET_KEY_NAME = new RegExp(`${AWS_SECRET_KEY}$`, 'i');

/**
 * Names that end like a secret's and hold something else: a page's cursor, a tokenizer's special token, a public
 * key (pub_key, a reCAPTCHA site key, Stripe's publishable key), a database's or a cache's key, a key's fingerprint.
 */
const NOT_SECRET_NAME = new RegExp(
  '(?:^|[_.-])(?:next|prev|previous|page|pagination|continuation|cursor|sync|resume|cancel|cancellation|eos|bos|pad|unk|sep|cls|mask)[_-]?token$' +
    '|(?:^|[_.-])(?:pub|public|publishable|site|verify|verifying|verification|primary|foreign|partition|sort|range|hash|cache|routing|idempotency|dedup|dedupe|lookup|map|row|shard|index|composite|unique|cluster|group|message|object|bucket|s3|translation|i18n|label|host|gpg|pgp)[_-]?key$',
  'i',
);
/** The whole name a key match ends, from the text before it (`HOMEBREW_GITHUB_API_TOKEN`, `"db_pass"`). */
function nameEndingAt(text: string, end: number): string {
  let start = end;
  while (start > 0 && end - start < 64 && /[A-Za-z0-9_.-]/.test(text[start - 1]!)) start--;
  return text.slice(start, end);
}

/**
 * A password-like value that is not a stand-in: eight characters or more, no spaces, not code,
 * and varied — three character classes, or twelve and more mixing letters and digits.
 */
export function isRealLookingSecretValue(value: string, key?: string): boolean {
  if (value.length < 8 || /\s/.test(value)) return false;
  if (isPlaceholderValue(value, key ? { key } : {}) || isCodeOrPath(value)) return false;
  if (/^(?:true|false|null|none|nil|undefined)$/i.test(value) || /^[+-]?\d+(?:\.\d+)?$/.test(value)) return false;
  const classes = charClasses(value);
  if (classes.count >= 3) return true;
  return value.length >= 12 && classes.digit && (classes.lower || classes.upper) && shannonEntropy(value) >= 3;
}

/** A lowercase slug with a word in it (`myapp-storage-v1`, `todos-vuejs-2.0`): typed, as a UUID or a token is not. */
const isSlug = (value: string) => /^[a-z0-9]+(?:[-_.:][a-z0-9]+)+$/.test(value) && value.split(/[-_.:]/).some((p) => /^[a-z]{4,}$/.test(p));

/**
 * For a name that says only "token" or "key" (`BOT_TOKEN`, `SIGNING_KEY`, `section_key`): the value must look generated,
 * not typed — sixteen characters and more, letters and digits, as varied as a random draw, no `#` (an anchor), no slug.
 */
function isGeneratedLookingValue(value: string, key: string): boolean {
  if (value.length < 16 || value.includes('#') || isSlug(value)) return false;
  return isRealLookingSecretValue(value, key) && looksRandom(value, { lettersAndDigits: true });
}

/**
 * The value check for a secret's name: password-like for the named keys and `_pass`; generated-looking for `_token`
 * and `_key`, whose names hold no credential often enough (NOT_SECRET_NAME) that a typed value is no evidence.
 */
function isSecretValueFor(keyMatch: string, value: string, key = keyMatch): boolean {
  return /^[_-](?:token|key)$/i.test(keyMatch) ? isGeneratedLookingValue(value, key) : isRealLookingSecretValue(value, key);
}

const isAwsSecret = (value: string) => /^[A-Za-z0-9/+]{40}$/.test(value) && looksRandom(value, { minClasses: 3 });

/** For a JSON field: the kind of secret `value` is under `key` (`{"password": "…"}`), if any. */
export function secretKindOfField(key: string, value: string): SecretKind | undefined {
  if (AWS_SECRET_KEY_NAME.test(key) && isAwsSecret(value)) return 'aws_secret_access_key';
  if (SECRET_KEY_NAME.test(key) && isRealLookingSecretValue(value, key)) return 'password_assignment';
  const generic = GENERIC_KEY_NAME.exec(key);
  if (generic && isSecretValueFor(generic[1]!, value, key) && !NOT_SECRET_NAME.test(key)) return 'password_assignment';
  return undefined;
}

const valueOf = (m: RegExpExecArray, first: number) => m[first] ?? m[first + 1] ?? m[first + 2] ?? m[first + 3] ?? '';

/**
 * What the MySQL and MariaDB clients take glued to -p: six characters or more, not a number (a port, mistyped for
 * -P), not a stand-in, and varied — three character classes, or eight and more mixing letters and digits.
 */
function isCommandLinePassword(value: string): boolean {
  if (value.length < 6 || /^[0-9]+$/.test(value) || isPlaceholderValue(value) || isCodeOrPath(value)) return false;
  const classes = charClasses(value);
  return classes.count >= 3 || (value.length >= 8 && classes.digit && (classes.lower || classes.upper));
}

export const contextDetectors: Detector[] = [
  {
    kind: 'aws_secret_access_key',
    keywords: ['secret'],
    pattern: new RegExp(`${AWS_SECRET_KEY}${ASSIGN}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`, 'gid'),
    group: 1,
    accept: (s) => isAwsSecret(s),
  },
  {
    // scheme://user:password@host. A short or empty password (u:p@, user:@), a port (host:8080@), a template
    // (<password>, ${PW}), a mask (****) or an example word (password, changeme, the user name) pass.
    kind: 'url_password',
    keywords: ['://'],
    pattern: /\b[a-z][a-z0-9+.-]{1,30}:\/\/([^\s:@/?#'"<>`]{0,128}):([^\s@/?#'"<>`]{1,256})@([A-Za-z0-9[][A-Za-z0-9.:[\]-]{0,253})/dgi,
    group: 2,
    accept: (pw, m) => {
      let plain = pw;
      try {
        plain = decodeURIComponent(pw);
      } catch {
        // not percent-encoded as a URL would be: judge it as written
      }
      if (plain.length < 6 || /^\d{1,5}$/.test(plain) || isPlaceholderValue(plain, { user: m[1]! })) return false;
      if (isExampleHost(m[3]!.replace(/:\d*$/, ''))) return false;
      // `https://user:he%2F%2Fo@…` is an example by its user name: only a strong password counts there.
      return !isStandInUser(m[1]!) || isRealLookingSecretValue(plain);
    },
  },
  {
    // GitHub's tokens before 2021, still in old scripts and env files: 40 hex and no prefix, so only the name they are
    // assigned to (GITHUB_TOKEN=, gh_token:, HOMEBREW_GITHUB_API_TOKEN=) or `Authorization: token` gives one away. A
    // commit SHA has the same shape under other names (GITHUB_SHA=, commit …) and passes.
    kind: 'github_token',
    keywords: ['github', 'gh_', 'gh-', 'authorization'],
    pattern: new RegExp(
      `(?:(?:github(?:[_-][a-z0-9_-]{0,30}?)?|(?<![a-z0-9])gh[_-][a-z0-9_-]{0,30}?)(?:token|pat)${ASSIGN}|authorization["']?[ \\t]*[:=][ \\t]*["']?token[ \\t]+)["'\`]?([0-9a-f]{40})(?![0-9a-z])`,
      'gid',
    ),
    group: 1,
    accept: (s) => looksRandom(s),
  },
  {
    // password = "…", PASSWORD=…, "api_key": "…", secret: …, auth_token := "…".
    kind: 'password_assignment',
    keywords: ['pass', 'pwd', 'secret', 'key', 'token'],
    pattern: new RegExp(`${SECRET_KEY}${ASSIGN}${VALUE}`, 'gid'),
    group: [2, 3, 4, 5],
    accept: (_s, m, text) => {
      // An unquoted value followed by `(`, `,`, `)`, `<` or `[` is code: a call, a parameter's type (`password: Uint8Array,`).
      if (m[5] !== undefined && /[(),<[]/.test(text[m.index + m[0].length] ?? '')) return false;
      return isRealLookingSecretValue(valueOf(m, 2), m[1]);
    },
  },
  {
    // DB_PASS=…, DISCORD_TOKEN=…, "signing-key": "…": a name ending in a separator and pass, token or key.
    kind: 'password_assignment',
    keywords: ['pass', 'token', 'key'],
    pattern: new RegExp(`${GENERIC_KEY}${ASSIGN}${VALUE}`, 'gid'),
    group: [2, 3, 4, 5],
    accept: (_s, m, text) => {
      if (m[5] !== undefined && /[(),<[]/.test(text[m.index + m[0].length] ?? '')) return false;
      if (!/[A-Za-z0-9]/.test(text[m.index - 1] ?? '') || !isSecretValueFor(m[1]!, valueOf(m, 2))) return false;
      return !NOT_SECRET_NAME.test(nameEndingAt(text, m.index + m[1]!.length));
    },
  },
  {
    // mysql -u root -pS3cr… (the MySQL and MariaDB clients take the password glued to -p, on the command's line or
    // its continuation lines). Without one they prompt (-p alone, -p db); -P is the port; psql's -p is a port too.
    kind: 'command_line_password',
    keywords: ['mysql', 'mariadb'],
    pattern:
      /\b(?:mysql(?:dump|admin|import|check|show|pump|binlog|sh)?|mariadb(?:-(?:dump|admin|import|check|show))?)(?=[ \t])(?:[^\n|;&]|\\\n){0,300}?[ \t]-p(?:'([^'\n]{1,128})'|"([^"\n]{1,128})"|([^\s'"`|;&<>()]{1,128}))/dg,
    group: [1, 2, 3],
    accept: (s) => isCommandLinePassword(s),
  },
  {
    // Authorization: Bearer <token>. Templates ($TOKEN, <token>) fall outside the alphabet.
    kind: 'bearer_token',
    keywords: ['bearer'],
    pattern: /\b[Bb]earer[ \t]+([A-Za-z0-9._~+/-]{20,1000}=*)(?![A-Za-z0-9._~+/=-])/dg,
    group: 1,
    accept: (s) => looksRandom(s, { lettersAndDigits: true }),
  },
];
