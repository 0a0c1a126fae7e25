/**
 * @module The browser-facing behaviour in headless Chromium (docs/accounts.md, "Origins"; docs/api.md): domain whitelisting
 * with the browser's own CORS enforcement, the free plan from a web page, and `/docs` rendering from
 * the Worker's own files. Pages come from the test page server under hostnames that Chromium maps to
 * 127.0.0.1; every other hostname fails to resolve, so nothing can leave the machine. Static files carry
 * the headers of `assets/_headers`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const ports = inject('ports');
/** Hostnames of the test pages and of the servers, all mapped to 127.0.0.1. */
const HOSTS = ['app.example.test', 'cancelled.example.test', 'evil.example.test', 'paid.example.test', 'free.example.test'];
const PAID_API = `http://paid.example.test:${ports.de}`;
const FREE_API = `http://free.example.test:${ports.free}`;
const page = (host: string) => `http://${host}:${ports.pages}/`;
/** Where the screenshots go (not committed). */
const ARTIFACTS = join(import.meta.dirname, 'artifacts');

let browser: Browser;

beforeAll(async () => {
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  browser = await chromium.launch({
    executablePath,
    args: [
      `--host-resolver-rules=${HOSTS.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}, MAP * ~NOTFOUND`,
      // Root in a container has no user namespaces for Chromium's sandbox.
      '--no-sandbox',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
});

/** What a page's script saw of a `fetch`: the status, the readable headers and body, or the error. */
interface Seen {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  error?: string;
}

/** Opens a page of `host` and runs `fetch(url, init)` in it, as a page's own script would. */
async function fetchFrom(host: string, url: string, init: { method?: string; body?: string; json?: boolean } = {}): Promise<Seen> {
  const tab = await browser.newPage();
  try {
    await tab.goto(page(host));
    return await fetchIn(tab, url, init);
  } finally {
    await tab.close();
  }
}

function fetchIn(tab: Page, url: string, init: { method?: string; body?: string; json?: boolean } = {}): Promise<Seen> {
  return tab.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, {
          method: init.method ?? 'GET',
          ...(init.body === undefined ? {} : { body: init.body }),
          headers: init.json ? { 'Content-Type': 'application/json' } : {},
        });
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        return { status: response.status, headers, body: await response.text() };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url, init },
  );
}

describe('a paid server, from web pages', () => {
  it('answers a page of a whitelisted hostname with a record', async () => {
    const seen = await fetchFrom('app.example.test', `${PAID_API}/api/json/8.8.8.8`);
    expect(seen.error).toBeUndefined();
    expect(seen.status).toBe(200);
    expect(JSON.parse(seen.body ?? '{}')).toMatchObject({ ipVersion: 4, ipAddress: '8.8.8.8' });
  });

  it('answers the preflighted JSON POST of a whitelisted page', async () => {
    const seen = await fetchFrom('app.example.test', `${PAID_API}/api/bulk/json`, {
      method: 'POST',
      body: JSON.stringify({ ips: ['8.8.8.8', '1.1.1.1'] }),
      json: true,
    });
    expect(seen.status).toBe(200);
    const answer = JSON.parse(seen.body ?? '{}') as Record<string, { ipAddress: string }>;
    expect(Object.values(answer).map((record) => record.ipAddress)).toEqual(['8.8.8.8', '1.1.1.1']);
  });

  it("is blocked by the browser's CORS enforcement for a page of another hostname", async () => {
    const tab = await browser.newPage();
    const consoleErrors: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    try {
      await tab.goto(page('evil.example.test'));
      const seen = await fetchIn(tab, `${PAID_API}/api/json/8.8.8.8`);
      expect(seen.status).toBeUndefined();
      expect(seen.error).toMatch(/TypeError: Failed to fetch/);
      // The browser says why: the answer came, without CORS headers for this origin.
      expect(consoleErrors.join('\n')).toMatch(/has been blocked by CORS policy/);
    } finally {
      await tab.close();
    }
    // The server did answer: 403 ORIGIN_FORBIDDEN, which the page was not allowed to read.
    const direct = await fetch(`http://127.0.0.1:${ports.de}/api/json/8.8.8.8`, { headers: { Origin: `http://evil.example.test:${ports.pages}` } });
    expect(direct.status).toBe(403);
    expect(direct.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(((await direct.json()) as { code: string }).code).toBe('ORIGIN_FORBIDDEN');
  });

  it("lets the page of a cancelled account's hostname read its 403 SUBSCRIPTION_INACTIVE", async () => {
    const seen = await fetchFrom('cancelled.example.test', `${PAID_API}/api/json/8.8.8.8`);
    expect(seen.status).toBe(403);
    expect(JSON.parse(seen.body ?? '{}')).toMatchObject({ code: 'SUBSCRIPTION_INACTIVE', status: 403 });
  });
});

describe('the free server, from any web page', () => {
  it('answers with the RateLimit fields readable, and 429 after the tenth request in ten seconds', async () => {
    const tab = await browser.newPage();
    try {
      await tab.goto(page('evil.example.test'));
      const started = Date.now();
      const seen: Seen[] = [];
      for (let i = 0; i < 11; i++) seen.push(await fetchIn(tab, `${FREE_API}/api/v1/json/8.8.8.8`));
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(seen.map((answer) => answer.status ?? answer.error)).toEqual([...Array(10).fill(200), 429]);
      const [first] = seen;
      expect(JSON.parse(first?.body ?? '{}')).toMatchObject({ ipAddress: '8.8.8.8' });
      expect(first?.headers?.['ratelimit-policy']).toBe('"burst";q=10;w=10, "minute";q=60;w=60');
      expect(first?.headers?.ratelimit).toMatch(/^"burst";r=9;t=\d+$/);
      const refused = seen[10];
      expect(JSON.parse(refused?.body ?? '{}')).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(Number(refused?.headers?.['retry-after'])).toBeGreaterThan(0);
      expect(refused?.headers?.ratelimit).toMatch(/^"burst";r=0;t=\d+$/);
    } finally {
      await tab.close();
    }
  });
});

describe('/docs', () => {
  // The free server's after the test above: this client is over its limit, which /docs ignores.
  it.each([
    ['free', FREE_API, 'free.example.test'],
    ['paid', PAID_API, 'paid.example.test'],
  ])('renders on the %s server with its operations listed, no console error, and no request leaving 127.0.0.1', async (plan, api, host) => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requested: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.type()}: ${message.text()}`);
    });
    tab.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    tab.on('request', (request) => requested.push(request.url()));
    tab.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
    try {
      const documentLoaded = tab.waitForResponse((answer) => answer.url().endsWith('/openapi.json') && answer.ok());
      const response = await tab.goto(`${api}/docs`);
      await documentLoaded;
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      // Operation summaries of the document, as the reference lists them (the first tag's are shown unfolded).
      for (const summary of ['Look up an address (JSON)', 'Look up an address (XML)']) {
        await expect(tab.getByText(summary, { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 })).resolves.toBeUndefined();
      }
      mkdirSync(ARTIFACTS, { recursive: true });
      await tab.screenshot({ path: join(ARTIFACTS, `docs-${plan}.png`) });
      expect(problems).toEqual([]);
      const hosts = new Set(requested.map((url) => new URL(url).host));
      expect([...hosts].filter((hostAndPort) => hostAndPort !== `${host}:${new URL(api).port}` && !hostAndPort.startsWith('127.0.0.1'))).toEqual([]);
      expect(requested.some((url) => url.endsWith('/openapi.json'))).toBe(true);
      expect(requested.some((url) => url.endsWith('/docs/vendor/scalar-api-reference.js'))).toBe(true);
    } finally {
      await tab.close();
    }
  });
});

describe('static files', () => {
  // Served by Workers Static Assets before the Worker runs: `assets/_headers` gives them the header the Worker gives its answers.
  it.each([
    ['free', ports.free],
    ['paid', ports.de],
  ])('carry X-Content-Type-Options: nosniff on the %s server, as its Worker answers do', async (_plan, port) => {
    const files = ['/docs/start.js', '/docs/vendor/scalar-api-reference.js', '/home/home.css', '/home/home.js', '/home/icon.svg', '/home/vendor/world.svg'];
    for (const path of [...files, '/health']) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      expect([path, response.status, response.headers.get('X-Content-Type-Options')]).toEqual([path, 200, 'nosniff']);
      await response.arrayBuffer();
    }
    // The rules file itself is not served: the path falls through to the Worker's 404.
    expect((await fetch(`http://127.0.0.1:${port}/_headers`)).status).toBe(404);
  });
});
