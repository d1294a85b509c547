// Who is asking: a browser (wants HTML) or an API client (a bearer token, or an Accept header
// that does not prefer text/html). `/` answers the first with the console, the second with JSON;
// a stored brief's link (`GET /api/v1/briefs/:id`, rest/brief.ts) sends the first to the console's
// page for it. Shared by REST and the console, so it sits below both.
import type { Context } from 'hono';

/** The q-value an Accept header gives a media type (exact, then type/*, then *\/*); 0 when absent. */
function qualityOf(accept: string, type: string): number {
  const [major] = type.split('/');
  let best = -1;
  let bestSpecificity = -1;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity < bestSpecificity || specificity < 0) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    bestSpecificity = specificity;
    best = q ? Number(q.slice(2)) || 0 : 1;
  }
  return Math.max(best, 0);
}

/** True when the client names text/html and ranks it at least as high as JSON. */
export function prefersHtml(c: Context): boolean {
  const accept = c.req.header('accept') ?? '';
  if (!/text\/html/i.test(accept)) return false;
  return qualityOf(accept, 'text/html') > 0 && qualityOf(accept, 'text/html') >= qualityOf(accept, 'application/json');
}

export function isApiClient(c: Context): boolean {
  return /^Bearer\s/i.test(c.req.header('authorization') ?? '') || !prefersHtml(c);
}
