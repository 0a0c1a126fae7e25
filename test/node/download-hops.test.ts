/**
 * @module Where `data:update` lets a download go (`data/update/destination.ts`, `download.ts`): an https
 * server on this machine (its certificate made by the test and trusted by this process only) redirects a
 * geofeed to plain http, to private, link-local (cloud metadata) and unique-local addresses, in circles
 * and to another origin with credentials; each hop is checked before it is followed, and a refusal names
 * URLs by origin and path only.
 */
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadCache } from '../../data/update/cache.ts';
import { addressRefusal, checkedLookup, hopRefusal, publicUrl } from '../../data/update/destination.ts';
import { download, UpdateError } from '../../data/update/download.ts';
import { fetchGeofeed } from '../../data/update/geofeeds.ts';
import { selfSignedCertificate } from '../support/self-signed.ts';

const FEED = '81.2.69.0/24,GB,GB-ENG,London,\n';

/** Where each path redirects (`Location`), or what it serves; and the credentials each request brought. */
const routes = new Map<string, { location: string } | { body: string }>();
const authorizations: { path: string; authorization: string | undefined }[] = [];
/** Requests the plain-http server received. */
let plainRequests = 0;
const servers: Server[] = [];
let httpsUrl = '';
let otherHttpsUrl = '';
let httpUrl = '';

function handler(request: IncomingMessage, response: ServerResponse): void {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  authorizations.push({ path, authorization: request.headers.authorization });
  const route = routes.get(path);
  if (route === undefined) return void response.writeHead(404).end();
  if ('location' in route) return void response.writeHead(302, { Location: route.location }).end();
  response.writeHead(200, { 'Content-Type': 'text/csv' }).end(route.body);
}

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const trusted = getCACertificates('default');
beforeAll(async () => {
  const { cert, key } = selfSignedCertificate();
  setDefaultCACertificates([...trusted, cert]);
  httpsUrl = `https://127.0.0.1:${await listen(createHttpsServer({ cert, key }, handler))}`;
  otherHttpsUrl = `https://127.0.0.1:${await listen(createHttpsServer({ cert, key }, handler))}`;
  httpUrl = `http://127.0.0.1:${await listen(
    createHttpServer((request, response) => {
      plainRequests++;
      handler(request, response);
    }),
  )}`;
  routes.set('/feed.csv', { body: FEED });
  routes.set('/to-http', { location: `${httpUrl}/feed.csv` });
  routes.set('/to-private', { location: 'https://10.1.2.3/feed.csv?token=SECRET' });
  routes.set('/to-metadata', { location: 'https://169.254.169.254/latest/meta-data/iam/security-credentials/' });
  routes.set('/to-unique-local', { location: 'https://[fd00:ec2::254]/latest/meta-data/' });
  routes.set('/to-6to4-private', { location: 'https://[2002:a01:203::1]/feed.csv' });
  routes.set('/to-other-port', { location: `${otherHttpsUrl}/feed.csv` });
  routes.set('/around', { location: `${httpsUrl}/around` });
  routes.set('/authorized', { location: '/feed.csv' });
  routes.set('/elsewhere', { location: `${otherHttpsUrl}/feed.csv` });
});
afterAll(async () => {
  setDefaultCACertificates(trusted);
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const cache = () => new DownloadCache(mkdtempSync(join(tmpdir(), 'ipgeo-hops-')));
const fetchFeed = (url: string) => fetchGeofeed({ url }, cache(), 10_000, () => {});

describe('a geofeed behind redirects', () => {
  it('is fetched over https, and through a redirect to another loopback origin when the first URL was loopback', async () => {
    expect((await fetchFeed(`${httpsUrl}/feed.csv`)).fetched.url).toBe(`${httpsUrl}/feed.csv`);
    expect((await fetchFeed(`${httpsUrl}/to-other-port`)).fetched.url).toBe(`${httpsUrl}/to-other-port`);
  });

  it.each([
    ['to plain http', '/to-http', () => `${httpUrl} is not https`],
    ['to a private address', '/to-private', () => '10.1.2.3 is in 10.0.0.0/8 (private-use network, RFC 1918)'],
    ['to the link-local metadata address', '/to-metadata', () => '169.254.169.254 is in 169.254.0.0/16 (link-local network, RFC 3927)'],
    ['to a unique-local address', '/to-unique-local', () => 'fd00:ec2::254 is in fc00::/7 (unique local address prefix, RFC 4193)'],
    ['to a 6to4 address that embeds a private one', '/to-6to4-private', () => '2002:a01:203::1 is in 10.0.0.0/8'],
    ['in circles', '/around', () => 'more than 5 redirects'],
  ])('refuses a redirect %s before following it, naming the URL without its query', async (_case, path, why) => {
    const error = await fetchFeed(`${httpsUrl}${path}?token=SECRET`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpdateError);
    const message = (error as Error).message;
    expect(message).toMatch(new RegExp(`^geofeed ${httpsUrl.replace(/[.]/g, '\\.')}${path}: `));
    expect(message).toContain(why());
    expect(message).not.toContain('SECRET');
    // The hop was refused before it was made.
    expect(plainRequests).toBe(0);
  });

  it('refuses a first URL that is not https, or that carries credentials', async () => {
    await expect(fetchFeed('http://geofeed.example.net/feed.csv')).rejects.toThrow('http://geofeed.example.net is not https');
    await expect(fetchFeed('ftp://geofeed.example.net/feed.csv')).rejects.toThrow('ftp: is not https');
    await expect(fetchFeed(`https://user:password@127.0.0.1:1/feed.csv`)).rejects.toThrow('https://127.0.0.1:1 carries credentials in the URL');
  });
});

describe('credentials', () => {
  it('go to the first URL’s origin only, never to another a redirect names', async () => {
    const headers = { Authorization: 'Basic c2VjcmV0' };
    authorizations.length = 0;
    expect((await download(`${httpsUrl}/authorized`, { what: 'x', headers, timeoutMs: 10_000, maxBytes: 1024 })).toString()).toBe(FEED);
    expect(authorizations.map(({ authorization }) => authorization)).toEqual(['Basic c2VjcmV0', 'Basic c2VjcmV0']);
    authorizations.length = 0;
    expect((await download(`${httpsUrl}/elsewhere`, { what: 'x', headers, timeoutMs: 10_000, maxBytes: 1024 })).toString()).toBe(FEED);
    expect(authorizations.map(({ authorization }) => authorization)).toEqual(['Basic c2VjcmV0', undefined]);
  });
});

describe('the rules of each hop', () => {
  const first = new URL('https://noc.example.net/geofeed.csv');
  const local = new URL('http://127.0.0.1:8811/geofeed.csv');

  it.each([
    ['https://noc.example.net/x', first, undefined],
    ['http://noc.example.net/x', first, 'is not https'],
    ['http://127.0.0.1:8812/x', first, 'is not https'],
    ['https://127.0.0.1/x', first, '127.0.0.1 is in 127.0.0.0/8'],
    ['https://[::1]/x', first, '::1 is in ::1/128'],
    ['https://192.168.1.1/x', first, '192.168.0.0/16'],
    ['https://100.100.100.200/x', first, '100.64.0.0/10'],
    ['https://[::ffff:169.254.169.254]/x', first, '169.254.0.0/16'],
    ['https://[fe80::1]/x', first, 'fe80::/10'],
    ['https://8.8.8.8/x', first, undefined],
    ['http://127.0.0.1:8812/x', local, undefined],
    ['http://localhost:8812/x', local, undefined],
    ['https://127.0.0.1:8812/x', local, undefined],
    ['http://8.8.8.8/x', local, 'is not https'],
  ])('%s after %s: %s', (hop, start, refusal) => {
    const why = hopRefusal(new URL(hop), start);
    if (refusal === undefined) expect(why).toBeUndefined();
    else expect(why).toContain(refusal);
  });

  it('refuses a name that resolves to a refused address, at the moment of connecting', async () => {
    const resolve = (loopback: boolean) =>
      new Promise<string>((done) =>
        checkedLookup(loopback)('localhost', { all: true }, (error, addresses) => done(error ? error.message : JSON.stringify(addresses))),
      );
    expect(await resolve(false)).toMatch(/^localhost resolves to (127\.0\.0\.1 is in 127\.0\.0\.0\/8|::1 is in ::1\/128)/);
    expect(await resolve(true)).toMatch(/127\.0\.0\.1|::1/);
    expect(addressRefusal('93.184.215.14', false)).toBeUndefined();
  });

  it('shows a URL by its origin and path only', () => {
    expect(publicUrl('https://user:pass@noc.example.net:8443/feeds/geo.csv?token=SECRET#prefixes=1.2.3.0/24')).toBe(
      'https://noc.example.net:8443/feeds/geo.csv',
    );
  });
});
