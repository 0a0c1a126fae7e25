/**
 * @module The HTML document around the service's pages (`/` of both plans): head, site header and the
 * footer with the data's version, age and attribution; and the Content-Security-Policy they are sent
 * with. Everything a page loads is a static asset of this origin (`assets/home/`).
 */
import type { Child } from 'hono/jsx';
import type { DataFacts } from './view.ts';

/** The pages' static assets (`assets/home/`): served before the Worker runs, never counted. */
const PAGE_ASSETS = { stylesheet: '/home/home.css', script: '/home/home.js', icon: '/home/icon.svg' } as const;

/**
 * The pages' Content-Security-Policy: scripts, styles, images (the map, the flags) and the page's own
 * requests (in-place lookups) from this origin only; no inline script or style, nothing evaluated, no
 * frames, plugins or fonts; forms submit here only.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** What every page's footer says about the data, or why it cannot. */
export interface FooterData {
  /** The loaded data's view; undefined while the data cannot be read. */
  readonly data: DataFacts | undefined;
  /** The status endpoint of this plan. */
  readonly statusPath: string;
}

/** The footer: the data's version and age, the attribution its licences require, and the links. */
function Footer({ data, statusPath }: FooterData) {
  return (
    <footer class="site-footer">
      {data === undefined ? (
        <p>The geolocation data cannot be read at the moment; its version shows here once it can.</p>
      ) : (
        <>
          <p>
            Data version <code>{data.version}</code>, built from sources dated {data.date} ({data.ageDays === 1 ? '1 day' : `${data.ageDays} days`} old).
            {data.stale ? ' It is more than 30 days old: the operator should update it.' : ''}
          </p>
          <ul class="sources">
            {data.sources.map((source) => (
              <li>
                {source.attribution}{' '}
                <span class="muted">
                  ({source.name} {source.version}; {source.licence})
                </span>
              </li>
            ))}
            {data.corrections.map((file) => (
              <li>
                Corrected by the operator from {file.name}{' '}
                <span class="muted">
                  ({file.prefixes === 1 ? '1 prefix' : `${file.prefixes} prefixes`}, RFC 8805 geofeed, taking precedence over the sources)
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      <p class="muted">Map: Natural Earth (public domain), through world-atlas. Flags: country-flag-icons (MIT).</p>
      <p>
        <a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI document</a> · <a href={statusPath}>Data status (JSON)</a>
      </p>
    </footer>
  );
}

/**
 * A whole page: the doctype, head (stylesheet, icon, and the page script when `script`), the site
 * header, `children` as the main content, and the footer.
 */
export function Page(props: FooterData & { title: string; script?: boolean; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{props.title}</title>
        <link rel="icon" href={PAGE_ASSETS.icon} type="image/svg+xml" />
        <link rel="stylesheet" href={PAGE_ASSETS.stylesheet} />
        {props.script ? <script type="module" src={PAGE_ASSETS.script} /> : null}
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to the content
        </a>
        <header class="site-header">
          <a class="brand" href="/">
            IP geolocation
          </a>
          <nav aria-label="Site">
            <a href="/docs">API reference</a>
            <a href={props.statusPath}>Status</a>
          </nav>
        </header>
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
        <Footer data={props.data} statusPath={props.statusPath} />
      </body>
    </html>
  );
}

/** The text of a page: `<!doctype html>` and the element rendered (synchronous components only). */
export function documentText(page: Child): string {
  const text = (page as { toString(): string | Promise<string> }).toString();
  if (typeof text !== 'string') throw new TypeError('a page rendered asynchronously: its components must be synchronous');
  return `<!doctype html>\n${text}`;
}
