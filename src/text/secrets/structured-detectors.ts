// Credentials recognised by their structure rather than a vendor prefix: PEM private key blocks
// (a BEGIN line followed by real key material) and JSON Web Tokens (three base64url parts whose
// header decodes to JSON naming an algorithm).
import type { Detector } from './detector.js';

/** How far past a BEGIN line to look for key material and its END line. */
const PEM_WINDOW = 16_384;
/** Key material: a run of base64 this long (a 256-bit EC key is ~160; docs' `MIIE…` stand-ins are a few). */
const PEM_MIN_BASE64 = 64;

/** A line of key material, once quotes, commas and comment marks around it are dropped: base64, or base64 words. */
const isMaterialLine = (core: string) => core.split(/\s+/).every((word) => /^[A-Za-z0-9+/=]+$/.test(word));

/**
 * The key's span (BEGIN to END, or to the end of its material) when real material follows the
 * BEGIN line: its base64 lines start right after it (after any headers — Proc-Type, DEK-Info — and
 * blank lines), so a BEGIN line named in prose does not claim a public key or a hash further on.
 * Key material holds no "-----", so the look ends at the next one (the END line, or another
 * BEGIN): each BEGIN costs only the text up to the next, and a scan stays linear.
 */
function pemKeyMaterial(match: RegExpExecArray, text: string): { end: number } | false {
  const from = match.index + match[0].length;
  const dashes = text.indexOf('-----', from);
  const stop = dashes === -1 ? Math.min(text.length, from + PEM_WINDOW) : Math.min(dashes, from + PEM_WINDOW);
  const material: string[] = [];
  let before = 0;
  // Lines end in a newline, or in a literal \n when the key was pasted as an escaped string.
  for (const raw of text.slice(from, stop).split(/\r?\n|(?:\\r)?\\n/)) {
    const core = raw.trim().replace(/^[^A-Za-z0-9+/=]+|[^A-Za-z0-9+/=]+$/g, '');
    if (!material.length && (!core || /^[A-Za-z-]+:/.test(raw.trim()))) {
      if (++before > 8) break;
      continue;
    }
    if (!core || !isMaterialLine(core)) break;
    material.push(core);
  }
  let longest = 0;
  for (const run of material.join('').match(/[A-Za-z0-9+/=]+/g) ?? []) longest = Math.max(longest, run.length);
  if (longest < PEM_MIN_BASE64) return false;
  const end = stop === dashes ? text.slice(dashes, dashes + 80).match(/^-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/) : null;
  return { end: end ? dashes + end[0].length : stop };
}

function decodeJsonPart(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** RFC 7519 §4.1. */
const REGISTERED_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti'];

export const structuredDetectors: Detector[] = [
  {
    // RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … PRIVATE KEY (BLOCK). PUBLIC KEY and CERTIFICATE blocks are public.
    kind: 'private_key',
    keywords: ['private key'],
    pattern: /-----BEGIN (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----/dg,
    accept: (_s, m, text) => pemKeyMaterial(m, text),
  },
  {
    // header.payload.signature; both JSON parts start `{"`, which base64url-encodes as eyJ.
    kind: 'jwt',
    keywords: ['eyj'],
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{4,8000}\.[A-Za-z0-9_-]{16,1000}(?![A-Za-z0-9_-])/dg,
    // An issued token carries registered claims (who, for whom, until when); a library's README
    // encoding {"some": "payload"} does not.
    accept: (s) => {
      const [header, payload] = s.split('.');
      const h = decodeJsonPart(header!);
      if (!h || typeof h.alg !== 'string' || h.alg.toLowerCase() === 'none') return false;
      const claims = decodeJsonPart(payload!);
      return !!claims && REGISTERED_CLAIMS.some((c) => c in claims);
    },
  },
];
