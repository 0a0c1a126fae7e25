/**
 * @module A paid server's home page, `GET /` (docs/home-page.md): open without a credential, it names the plan,
 * the region, the data's version (the build's manifest) and its sources' attribution, links to /docs
 * and the status endpoint, and makes no lookup.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { attributesOf, visibleText } from '../support/html.ts';
import { type ManifestForTests, readManifest } from '../support/manifest.ts';
import { PAID_ORIGIN } from '../support/paid-fetch.ts';
import { workerFetch } from '../support/worker-fetch.ts';

let manifest: ManifestForTests;
beforeAll(async () => {
  manifest = await readManifest();
});

describe('GET / on a paid server', () => {
  it('answers without a credential: plan, region, data version and attribution, under the pages’ CSP', async () => {
    const response = await workerFetch(`${PAID_ORIGIN}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/html; charset=UTF-8');
    const csp = response.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');
    const html = await response.text();
    const text = await visibleText(html);
    expect(text).toContain('Paid');
    expect(text).toContain('Germany');
    expect(text).toContain(`Data version ${manifest.version}`);
    for (const source of manifest.sources) expect(text).toContain(source.attribution);
    expect((await attributesOf(html, 'a')).map((link) => link.href)).toEqual(expect.arrayContaining(['/docs', '/api/status']));
  });

  it('makes no lookup and offers none: no form, no record, no script', async () => {
    const html = await (await workerFetch(`${PAID_ORIGIN}/?ip=81.2.69.142`, { headers: { 'CF-Connecting-IP': '81.2.69.142' } })).text();
    expect(await attributesOf(html, 'form')).toEqual([]);
    expect(await attributesOf(html, 'script')).toEqual([]);
    expect(await visibleText(html)).not.toContain('81.2.69.142');
  });
});
