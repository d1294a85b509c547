// The console's error answer: a page for a browser, the one JSON error shape for anyone else.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { toAppError } from '../../errors.js';
import type { ValidationIssue } from '../../../lib/validate.js';
import { Page } from '../views/layout.js';
import { prefersHtml } from '../../negotiate.js';
import { sendPage } from '../render.js';
import type { ConsoleEnv } from '../env.js';

const HEADINGS: Record<number, string> = {
  400: 'That input is not valid',
  401: 'Sign in first',
  403: 'Not allowed',
  404: 'Not found',
  409: 'That cannot be done now',
  413: 'Too large',
  415: 'Wrong kind of request',
  422: 'Refused',
  500: 'Something went wrong',
  503: 'Unavailable',
};

export function consoleError(err: unknown, c: Context<ConsoleEnv>) {
  const appErr = toAppError(err);
  if (appErr.code === 'internal') console.error('[doco] unexpected console error on', c.req.method, c.req.path, err);
  const status = appErr.status as ContentfulStatusCode;
  if (!prefersHtml(c)) return c.json(appErr.toBody(), status);
  const issues = (appErr.details as { issues?: ValidationIssue[] } | undefined)?.issues;
  const session = c.get('session');
  const page = (
    <Page title={HEADINGS[status] ?? 'Error'} session={session} csrf={c.get('csrf')}>
      <div class="error-page box">
        <div class="box-head">
          <h1>{HEADINGS[status] ?? 'Error'}</h1>
          <code class="muted">
            {status} {appErr.code}
          </code>
        </div>
        <div class="box-body">
          <p>{appErr.message}</p>
          {issues?.length ? (
            <ul>
              {issues.map((i) => (
                <li>
                  <code>{i.path || '(form)'}</code> {i.message}
                </li>
              ))}
            </ul>
          ) : null}
          <p class="actions">
            {status === 401 ? (
              <a class="button" href="/sign-in">
                Sign in
              </a>
            ) : (
              <a class="button" href="/">
                Back to the overview
              </a>
            )}
          </p>
        </div>
      </div>
    </Page>
  );
  return sendPage(c, page, status);
}
