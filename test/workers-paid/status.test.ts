/**
 * @module The paid server's `GET /api/status` (open without a credential) and `X-Database-Version`
 * on every lookup answer of the paid plan: single JSON and XML, bulk JSON and XML, distance.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectedDatabase, type ManifestForTests, readManifest } from '../support/manifest.ts';
import { PAID_ORIGIN, paidFetch, postJson } from '../support/paid-fetch.ts';
import { workerFetch } from '../support/worker-fetch.ts';

let manifest: ManifestForTests;
beforeAll(async () => {
  manifest = await readManifest();
});

describe('GET /api/status', () => {
  it('answers without a credential: the plan, the region and the database', async () => {
    const response = await workerFetch(`${PAID_ORIGIN}/api/status`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { stale: boolean };
    expect(body).toEqual({ plan: 'paid', region: 'de', database: expectedDatabase(manifest), stale: body.stale });
    expect(body.stale).toBe(true);
  });
});

describe('X-Database-Version on the paid lookups', () => {
  it.each([
    ['GET /api/json/8.8.8.8', () => paidFetch('/api/json/8.8.8.8')],
    ['GET /api/xml/81.2.69.142', () => paidFetch('/api/xml/81.2.69.142')],
    ['POST /api/bulk/json', () => postJson('/api/bulk/json', { ips: ['8.8.8.8', '10.0.0.1'] })],
    ['POST /api/bulk/xml', () => postJson('/api/bulk/xml', { ips: ['8.8.8.8', '2001:4860:4860::8888'] })],
    ['POST /api/distance', () => postJson('/api/distance', { from: '8.8.8.8', to: '81.2.69.142' })],
  ])('is on the answer to %s, equal to the manifest version', async (_name, send) => {
    const response = await send();
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Database-Version')).toBe(manifest.version);
  });

  it('is not on the reference endpoints', async () => {
    expect((await paidFetch('/api/countries/DE')).headers.has('X-Database-Version')).toBe(false);
  });
});
