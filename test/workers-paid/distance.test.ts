/**
 * @module `POST /api/distance`: the two ends must be those of the single lookups of the same
 * addresses, and the distance that of an independent solver, Vincenty's inverse formula (1975)
 * written out here, which agrees with GeographicLib to well under a millimetre away from antipodes.
 */
import { describe, expect, it } from 'vitest';
import { paidFetch, postJson } from '../support/paid-fetch.ts';

type Json = Record<string, unknown>;

/**
 * Vincenty's inverse solution on WGS84 (T. Vincenty, Survey Review XXIII, 176, 1975).
 *
 * @returns metres.
 */
function vincentyMetres(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const a = 6378137;
  const f = 1 / 298.257223563;
  const b = a * (1 - f);
  const rad = Math.PI / 180;
  const L = (lon2 - lon1) * rad;
  const U1 = Math.atan((1 - f) * Math.tan(lat1 * rad));
  const U2 = Math.atan((1 - f) * Math.tan(lat2 * rad));
  const [sinU1, cosU1, sinU2, cosU2] = [Math.sin(U1), Math.cos(U1), Math.sin(U2), Math.cos(U2)];
  let lambda = L;
  for (let i = 0; i < 200; i++) {
    const sinLambda = Math.sin(lambda);
    const cosLambda = Math.cos(lambda);
    const sinSigma = Math.hypot(cosU2 * sinLambda, cosU1 * sinU2 - sinU1 * cosU2 * cosLambda);
    if (sinSigma === 0) return 0;
    const cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda;
    const sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinLambda) / sinSigma;
    const cos2Alpha = 1 - sinAlpha * sinAlpha;
    const cos2SigmaM = cos2Alpha === 0 ? 0 : cosSigma - (2 * sinU1 * sinU2) / cos2Alpha;
    const C = (f / 16) * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha));
    const previous = lambda;
    lambda = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)));
    if (Math.abs(lambda - previous) < 1e-13) {
      const u2 = (cos2Alpha * (a * a - b * b)) / (b * b);
      const A = 1 + (u2 / 16384) * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)));
      const B = (u2 / 1024) * (256 + u2 * (-128 + u2 * (74 - 47 * u2)));
      const deltaSigma =
        B *
        sinSigma *
        (cos2SigmaM +
          (B / 4) *
            (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM) - (B / 6) * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)));
      return b * A * (sigma - deltaSigma);
    }
  }
  throw new Error('Vincenty did not converge');
}

async function record(ip: string): Promise<Json> {
  const response = await paidFetch(`/api/json/${encodeURIComponent(ip)}`);
  expect(response.status, ip).toBe(200);
  return (await response.json()) as Json;
}

describe('POST /api/distance', () => {
  it.each([
    ['81.2.69.142', '2001:7fe::53'],
    ['8.8.8.8', '81.2.69.142'],
    ['2001:7f8::1', '202.12.27.33'],
  ])('measures %s to %s between the positions of their single lookups', async (from, to) => {
    const response = await postJson('/api/distance', { from, to });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { from: Json; to: Json; distance: { km: number; miles: number } };
    const [a, b] = [await record(from), await record(to)];
    const end = (r: Json) => ({ ip: r.ipAddress, latitude: r.latitude, longitude: r.longitude, city: r.cityName, country: r.countryName });
    expect(body.from).toEqual(end(a));
    expect(body.to).toEqual(end(b));

    const metres = vincentyMetres(a.latitude as number, a.longitude as number, b.latitude as number, b.longitude as number);
    // Rounded to 0.01: within half a hundredth of the independent value (plus float slack).
    expect(Math.abs(body.distance.km - metres / 1000)).toBeLessThanOrEqual(0.005 + 1e-9);
    expect(Math.abs(body.distance.miles - metres / 1609.344)).toBeLessThanOrEqual(0.005 + 1e-9);
    // Two decimals: a hundredfold is an integer.
    expect(body.distance.km * 100).toBeCloseTo(Math.round(body.distance.km * 100), 6);
    expect(body.distance.miles * 100).toBeCloseTo(Math.round(body.distance.miles * 100), 6);
  });

  it('answers zero between an address and itself, written two ways', async () => {
    const body = (await (await postJson('/api/distance', { from: '2001:7fe::53', to: '2001:07FE:0:0::0053' })).json()) as Json;
    expect(body.distance).toEqual({ km: 0, miles: 0 });
    expect((body.to as Json).ip).toBe('2001:7fe::53');
  });

  it('names the side whose address is invalid, reserved or not in the data', async () => {
    const cases: [Json, number, string, string][] = [
      [{ from: 'nope', to: '8.8.8.8' }, 400, 'IP_ADDRESS_INVALID', 'from'],
      [{ from: '8.8.8.8', to: '192.168.1.1' }, 400, 'IP_ADDRESS_RESERVED', 'to'],
      [{ from: '2c0f:ffff::1', to: '8.8.8.8' }, 404, 'IP_ADDRESS_NOT_FOUND', 'from'],
      [{ from: '8.8.8.8', to: '2c0f:ffff::1' }, 404, 'IP_ADDRESS_NOT_FOUND', 'to'],
    ];
    for (const [body, status, code, side] of cases) {
      const response = await postJson('/api/distance', body);
      expect(response.status, code).toBe(status);
      expect(response.headers.get('Content-Type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as Json;
      expect(problem).toMatchObject({ code, side, instance: '/api/distance' });
      expect(problem.detail).toMatch(new RegExp(`^${side}: `));
    }
  });

  it('answers IP_ADDRESS_NOT_FOUND for an address that the data knows without a position', async () => {
    // 103.177.50.1 has ASN data only in the default sources (GeoLite2 City has no record for it).
    const known = await record('103.177.50.1');
    expect([known.latitude, known.longitude, known.countryCode]).toEqual([0, 0, '']);
    const response = await postJson('/api/distance', { from: '8.8.8.8', to: '103.177.50.1' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'IP_ADDRESS_NOT_FOUND', side: 'to' });
  });

  it('keeps the members of the underlying problem, such as the reserved range', async () => {
    const problem = (await (await postJson('/api/distance', { from: '8.8.8.8', to: '192.168.1.1' })).json()) as Json;
    expect(problem).toMatchObject({ range: '192.168.0.0/16', rfc: 'RFC 1918', side: 'to' });
  });

  it.each([
    ['a missing member', { from: '8.8.8.8' }],
    ['a member that is not a string', { from: '8.8.8.8', to: 8 }],
    ['another member', { from: '8.8.8.8', to: '1.1.1.1', unit: 'km' }],
    ['an array', ['8.8.8.8', '1.1.1.1']],
  ])('refuses a body with %s with BODY_INVALID', async (_, body) => {
    const response = await postJson('/api/distance', body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'BODY_INVALID' });
  });

  it('refuses malformed JSON, other media types and oversized bodies', async () => {
    const post = (headers: Record<string, string>, body: string) => paidFetch('/api/distance', { method: 'POST', headers, body });
    const malformed = await post({ 'Content-Type': 'application/json' }, '{"from": "8.8.8.8",');
    expect([malformed.status, ((await malformed.json()) as Json).code]).toEqual([400, 'BODY_INVALID']);
    const form = await post({ 'Content-Type': 'application/x-www-form-urlencoded' }, 'from=8.8.8.8&to=1.1.1.1');
    expect([form.status, ((await form.json()) as Json).code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const large = await post({ 'Content-Type': 'application/json' }, JSON.stringify({ from: '8.8.8.8', to: '1.1.1.1', pad: 'x'.repeat(17_000) }));
    expect([large.status, ((await large.json()) as Json).code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });
});
