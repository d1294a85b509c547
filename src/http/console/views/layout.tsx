// The page shell: the top bar (workspace, who is signed in, sign out) and the navigation.
import type { Child } from 'hono/jsx';
import type { ConsoleSession } from '../../../auth/console-sessions.js';
import { CsrfField, Pill } from './ui.js';

export const NAV = [
  { href: '/', label: 'Overview' },
  { href: '/review', label: 'Review' },
  { href: '/briefs', label: 'Briefs' },
  { href: '/search', label: 'Search' },
  { href: '/docs', label: 'Docs' },
  { href: '/tokens', label: 'Tokens' },
] as const;

export interface PageProps {
  title: string;
  /** The nav entry to mark as current. */
  section?: (typeof NAV)[number]['href'];
  session?: ConsoleSession;
  csrf?: string;
  /** Extra elements for <head> (a meta refresh). */
  head?: Child;
  children?: Child;
}

export function Page({ title, section, session, csrf, head, children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Doco`}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/console.css" />
        {head}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="top-inner">
            <a class="brand" href="/">
              <span class="brand-mark" aria-hidden="true"></span>Doco
            </a>
            {session ? (
              <nav class="nav" aria-label="Console">
                {NAV.map((n) => (
                  <a href={n.href} aria-current={n.href === section ? 'page' : undefined}>
                    {n.label}
                  </a>
                ))}
              </nav>
            ) : (
              <span class="nav"></span>
            )}
            {session && csrf ? (
              <div class="who">
                <span>
                  <code>{session.workspaceSlug}</code> · {session.principalName}
                </span>
                <Pill kind={session.scope}>{session.scope}</Pill>
                <form method="post" action="/sign-out">
                  <CsrfField token={csrf} />
                  <button type="submit">Sign out</button>
                </form>
              </div>
            ) : null}
          </div>
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}

/** A page's heading and the line under it. */
export const PageHead = ({ title, children }: { title: string; children?: Child }) => (
  <div class="page-head">
    <div>
      <h1>{title}</h1>
      {children ? <p class="sub">{children}</p> : null}
    </div>
  </div>
);
