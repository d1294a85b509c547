// An ask is not a write, so a credential in it is not refused: a hook passes the user's prompt
// as it is, and a hook must never block. But a brief is stored (doco.briefs keeps its request
// and its response), and the ask reaches the hosted embedder, reranker and synthesizer. So a
// credential in `about` or `touching` is redacted, and a code term holding one dropped, before
// anything else sees it, and the brief says so in its warnings; retrieval loses nothing a random
// token could have matched.
import { SECRET_LABELS } from '../text/secrets/detector.js';
import { redactSecrets } from '../text/secrets/scan.js';
import type { BriefRequest } from './types.js';

export function redactAsk(req: BriefRequest): { req: BriefRequest; warning?: string } {
  const about = redactSecrets(req.about);
  const touching = req.touching.map((t) => redactSecrets(t));
  // A code term holding a credential is dropped, not redacted: "[redacted …]" is no identifier.
  const terms = (req.code_terms ?? []).map((t) => ({ t, kinds: redactSecrets(t).kinds }));
  const kinds = [...new Set([...about.kinds, ...touching.flatMap((t) => t.kinds), ...terms.flatMap((t) => t.kinds)])];
  if (!kinds.length) return { req };
  const codeTerms = req.code_terms && { code_terms: terms.filter((t) => !t.kinds.length).map((t) => t.t) };
  return {
    req: { ...req, about: about.text, touching: touching.map((t) => t.text), ...codeTerms },
    warning: `the ask held ${kinds.map((k) => SECRET_LABELS[k]).join(', ')}: redacted before retrieval, and not stored`,
  };
}
