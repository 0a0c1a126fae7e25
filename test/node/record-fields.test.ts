/**
 * @module The fields answered only when asked for (`fields=all`), through the build, the lookup pipeline
 * and the renderer, each against an oracle that shares no code with them: `accuracyRadius`, `isEu` and
 * `network` against MaxMind's test databases read with `@maxmind/geoip2-node` and mmdb-lib
 * (`test/support/network-oracle.ts`); the flags against the Anonymous-IP test database and against lists
 * this test makes itself (every listed network flagged, its neighbours as the lists say, a provider's
 * name from the most specific network); and the same three fields over the default build against the
 * native GeoLite2 City file and the ASN ranges it was built from.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import { Reader } from 'mmdb-lib';
import { describe, expect, it } from 'vitest';
import { build } from '../../data/build.ts';
import { compile } from '../../data/compile.ts';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { maxmindAnonymousIp, maxmindAsn, maxmindCity } from '../../data/sources/maxmind.ts';
import type { FlagSource, NetworkFlag } from '../../data/sources/source.ts';
import { GeoDatabase } from '../../src/geo/database.ts';
import { ENGLISH } from '../../src/geo/languages.ts';
import { EVERY_FIELD } from '../../src/lookup/fields.ts';
import { lookupAll } from '../../src/lookup/pipeline.ts';
import { singleBody } from '../../src/lookup/render.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { geoip2Reader, geolite2CityFile, orNull } from '../support/geoip2.ts';
import { anonymousKey, asnKey, cityKey, expectedNetwork } from '../support/network-oracle.ts';
import { seededRandom } from '../support/seeded-random.ts';
import { fromUtf8 } from '../support/utf8-text.ts';

const testData = (name: string) => `${FIXTURES}/test-data/${name}.mmdb`;
const sourceJson = (name: string): Array<[string, Record<string, unknown>]> =>
  (JSON.parse(readFileSync(`${FIXTURES}/source-data/${name}.json`, 'utf8')) as Array<Record<string, Record<string, unknown>>>).flatMap((item) =>
    Object.entries(item),
  );

/** The record of every field that `database` answers for `address`, or undefined where it has none. */
function everyField(database: GeoDatabase, address: string): Record<string, unknown> | undefined {
  const [outcome] = lookupAll(database, [address]);
  if (outcome?.kind !== 'found') return undefined;
  return JSON.parse(fromUtf8(singleBody(outcome, 'json', { fields: EVERY_FIELD, language: ENGLISH, now: 0 }))) as Record<string, unknown>;
}

/** An address as a number and back, in its own family (IPv4 32 bits, IPv6 128). */
const numberOf = (text: string): bigint =>
  ipaddr
    .parse(text)
    .toByteArray()
    .reduce((sum, byte) => (sum << 8n) | BigInt(byte), 0n);
function textOf(value: bigint, ipv4: boolean): string {
  const length = ipv4 ? 4 : 16;
  const bytes = Array.from({ length }, (_, i) => Number((value >> BigInt(8 * (length - 1 - i))) & 0xffn));
  return ipv4 ? bytes.join('.') : (ipaddr.fromByteArray(bytes) as ipaddr.IPv6).toRFC5952String();
}

/** The first and last address of a CIDR (IPv4 as a dotted quad, `::a.b.c.d/n` of the source JSON as IPv6). */
function ends(cidr: string): { first: bigint; last: bigint; ipv4: boolean } {
  const [address, length] = ipaddr.parseCIDR(cidr);
  const ipv4 = address.kind() === 'ipv4';
  const bits = ipv4 ? 32 : 128;
  const first = numberOf(address.toString()) & (((1n << BigInt(length)) - 1n) << BigInt(bits - length));
  return { first, last: first + (1n << BigInt(bits - length)) - 1n, ipv4 };
}

/** Addresses of each source network: its first, its last, and one inside. */
function addressesOf(cidrs: readonly string[], random: () => number): string[] {
  return cidrs.flatMap((cidr) => {
    const { first, last, ipv4 } = ends(cidr);
    // `::a.b.c.d/n` of the source JSON: the IPv4 network itself.
    const v4 = !ipv4 && first >> 32n === 0n;
    const inside = first + BigInt(Math.floor(random() * Number(last - first + 1n > 1_000_000n ? 1_000_000n : last - first + 1n)));
    return [first, last, inside].map((value) => textOf(value, ipv4 || v4));
  });
}

describe("the test databases' accuracy radius, EU membership and network", () => {
  const sources = {
    locations: [maxmindCity(testData('GeoIP2-City-Test'))],
    networks: [maxmindAsn(testData('GeoLite2-ASN-Test'))],
    flags: [maxmindAnonymousIp(testData('GeoIP2-Anonymous-IP-Test'))],
  };
  const database = new GeoDatabase(compile({ ...sources, buildEpoch: 1_700_000_000 }).bytes);
  const city = geoip2Reader(testData('GeoIP2-City-Test'));
  const anonymous = geoip2Reader(testData('GeoIP2-Anonymous-IP-Test'));
  const native = {
    city: new Reader<never>(readFileSync(testData('GeoIP2-City-Test'))),
    asn: new Reader<never>(readFileSync(testData('GeoLite2-ASN-Test'))),
    anonymous: new Reader<never>(readFileSync(testData('GeoIP2-Anonymous-IP-Test'))),
  };
  const nativeSources = [
    { reader: native.city, key: cityKey },
    { reader: native.asn, key: asnKey },
    { reader: native.anonymous, key: anonymousKey },
  ];
  const random = seededRandom(39);
  const addresses = addressesOf(
    ['GeoIP2-City-Test', 'GeoLite2-ASN-Test', 'GeoIP2-Anonymous-IP-Test'].flatMap((name) => sourceJson(name).map(([cidr]) => cidr)),
    random,
  );

  it('answers each address with the radius, EU membership and network the native data gives it', () => {
    let found = 0;
    const radii = new Set<number>();
    for (const address of addresses) {
      const record = everyField(database, address);
      if (record === undefined) continue;
      found++;
      const model = orNull(() => city.city(address));
      const country = model?.country?.isoCode ? model.country : model?.registeredCountry;
      expect(record.accuracyRadius, address).toBe(model?.location?.accuracyRadius ?? 0);
      expect(record.isEu, address).toBe(country?.isInEuropeanUnion ?? false);
      expect(record.network, address).toBe(expectedNetwork(address, nativeSources));
      radii.add(record.accuracyRadius as number);
    }
    expect(found).toBeGreaterThan(1_000);
    expect(radii.size).toBeGreaterThan(3);
  });

  it("answers, with the City data alone, a network that holds geoip2-node's traits.network", () => {
    const alone = new GeoDatabase(compile({ locations: sources.locations, networks: [], flags: [], buildEpoch: 1_700_000_000 }).bytes);
    let compared = 0;
    for (const address of addresses) {
      const traits = orNull(() => city.city(address))?.traits;
      const record = everyField(alone, address);
      if (traits?.network === undefined || record === undefined) continue;
      const [ours, length] = ipaddr.parseCIDR(record.network as string);
      // geoip2-node answers an IPv4-mapped address's network in IPv6, where the service answers it in IPv4.
      const [given, givenLength] = ipaddr.parseCIDR(traits.network);
      const mapped = given instanceof ipaddr.IPv6 && given.isIPv4MappedAddress();
      const [theirs, theirLength] = mapped ? [given.toIPv4Address(), givenLength - 96] : [given, givenLength];
      expect(length, address).toBeLessThanOrEqual(theirLength);
      expect(theirs.kind() === ours.kind() && theirs.match(ours, length), `${traits.network} in ${record.network}`).toBe(true);
      compared++;
    }
    expect(compared).toBeGreaterThan(500);
  });

  it("sets each flag as the Anonymous-IP data's own fields say, and isProxy for all but hosting", () => {
    let flagged = 0;
    for (const address of addresses) {
      const record = everyField(database, address);
      if (record === undefined) continue;
      const model = orNull(() => anonymous.anonymousIP(address));
      const specific = Boolean(model?.isAnonymousVpn || model?.isTorExitNode || model?.isHostingProvider || model?.isPublicProxy || model?.isResidentialProxy);
      const proxy = Boolean(model?.isPublicProxy || model?.isResidentialProxy || (model?.isAnonymous && !specific));
      expect([record.isVpn, record.isTor, record.isRelay, record.isHosting, record.hostingProvider, record.isProxy], address).toEqual([
        Boolean(model?.isAnonymousVpn),
        Boolean(model?.isTorExitNode),
        false,
        Boolean(model?.isHostingProvider),
        '',
        Boolean(model?.isAnonymousVpn || model?.isTorExitNode || proxy),
      ]);
      if (specific) flagged++;
    }
    expect(flagged).toBeGreaterThan(20);
  });
});

/** A network of a list the test makes: its CIDR text, the flags it sets, and a provider's name if any. */
interface Listed {
  readonly cidr: string;
  readonly flags: readonly NetworkFlag[];
  readonly provider?: string;
}

/** A flag source of `entries`, as a downloaded list's reader gives one. */
function listSource(name: string, entries: readonly Listed[]): FlagSource {
  const sets = [...new Set(entries.flatMap((entry) => [...entry.flags, ...(entry.provider ? ['hosting' as const] : [])]))];
  return {
    info: {
      name,
      provides: 'proxy',
      origin: 'file',
      version: `${entries.length} networks`,
      builtAt: '2026-01-01T00:00:00.000Z',
      licence: 'test',
      attribution: 'test',
      files: [],
    },
    sets,
    forEach(visit) {
      for (const entry of entries) visit(parseNetwork(entry.cidr), { flags: entry.flags, ...(entry.provider ? { hostingProvider: entry.provider } : {}) });
    },
  };
}

/** `count` random networks: IPv4 /12 to /32 within 81.0.0.0/8 (where they overlap), IPv6 /40 to /64 within 2a00::/16. */
function randomEntries(random: () => number, count: number, flags: readonly NetworkFlag[], providers: readonly string[]): Listed[] {
  return Array.from({ length: count }, (_, i) => {
    const ipv4 = i % 3 !== 0;
    const length = ipv4 ? 12 + Math.floor(random() * 21) : 40 + Math.floor(random() * 25);
    const value = ipv4
      ? (81n << 24n) | BigInt(Math.floor(random() * 2 ** 24))
      : (0x2a00n << 112n) | (BigInt(Math.floor(random() * 2 ** 32)) << 80n) | BigInt(Math.floor(random() * 2 ** 32));
    const { first } = ends(`${textOf(value, ipv4)}/${length}`);
    const provider = providers.length > 0 && random() < 0.7 ? providers[Math.floor(random() * providers.length)] : undefined;
    const some = flags.filter(() => random() < 0.7);
    return { cidr: `${textOf(first, ipv4)}/${length}`, flags: some.length > 0 ? some : flags.slice(0, 1), ...(provider ? { provider } : {}) };
  });
}

describe('flags from lists', () => {
  const random = seededRandom(3_900);
  const lists = [
    randomEntries(random, 150, ['vpn', 'proxy'], []),
    randomEntries(random, 150, ['hosting'], ['Cloud A', 'Cloud "B" <&>', 'Clöud C']),
    randomEntries(random, 100, ['relay', 'tor'], ['Relay D']),
  ];
  const database = new GeoDatabase(
    compile({
      locations: [maxmindCity(testData('GeoIP2-City-Test'))],
      networks: [],
      flags: lists.map((entries, k) => listSource(`list-${k}`, entries)),
      buildEpoch: 1_700_000_000,
    }).bytes,
  );

  /** Every network of the lists, in the lists' order, with its range and prefix length. */
  const ranges = lists.flat().map((entry) => ({ ...entry, ...ends(entry.cidr), length: Number(entry.cidr.split('/')[1]) }));

  /** What the lists say of `address`: every flag of every network holding it, and the name of the most specific one naming a provider (between equal ones, the earlier list's). */
  function listed(address: string): { flags: Set<string>; provider: string } {
    const value = numberOf(address);
    const ipv4 = !address.includes(':');
    const flags = new Set<string>();
    let provider = '';
    let providerLength = -1;
    for (const entry of ranges) {
      if (entry.ipv4 !== ipv4 || value < entry.first || value > entry.last) continue;
      for (const flag of entry.flags) flags.add(flag);
      if (entry.provider) {
        flags.add('hosting');
        if (entry.length > providerLength) [provider, providerLength] = [entry.provider, entry.length];
      }
    }
    return { flags, provider };
  }

  it('flags every listed network as the lists say, first and last address, and its neighbours only where a list holds them', () => {
    let neighboursWithout = 0;
    let named = 0;
    for (const entry of lists.flat()) {
      const { first, last, ipv4 } = ends(entry.cidr);
      const bits = ipv4 ? 32 : 128;
      for (const value of [first - 1n, first, last, last + 1n]) {
        if (value < 0n || value >= 1n << BigInt(bits)) continue;
        const address = textOf(value, ipv4);
        const want = listed(address);
        const record = everyField(database, address);
        const inside = value >= first && value <= last;
        if (inside) expect(record, address).toBeDefined();
        if (!inside && want.flags.size === 0) neighboursWithout++;
        if (want.provider) named++;
        expect(
          [record?.isVpn, record?.isTor, record?.isRelay, record?.isHosting, record?.hostingProvider, record?.isProxy].map((v) => v ?? false),
          `${address} of ${entry.cidr}`,
        ).toEqual([
          want.flags.has('vpn'),
          want.flags.has('tor'),
          want.flags.has('relay'),
          want.flags.has('hosting'),
          want.provider || (record === undefined ? false : ''),
          ['vpn', 'tor', 'relay', 'proxy'].some((flag) => want.flags.has(flag)),
        ]);
      }
    }
    // The lists overlap, yet most neighbours are outside every network, and many addresses are named.
    expect(neighboursWithout).toBeGreaterThan(300);
    expect(named).toBeGreaterThan(300);
  });

  it("keeps the earlier list's name between networks of the same length", () => {
    const same = (name: string, provider: string) => listSource(name, [{ cidr: '81.2.70.0/24', flags: ['hosting'], provider }]);
    const both = new GeoDatabase(compile({ locations: [], networks: [], flags: [same('first', 'First'), same('second', 'Second')], buildEpoch: 0 }).bytes);
    expect(everyField(both, '81.2.70.7')?.hostingProvider).toBe('First');
  });

  it('flags the networks of a --proxy-list file as proxies, and only them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipgeo-flags-'));
    const list = join(dir, 'proxies.txt');
    writeFileSync(list, '# listed\n81.2.69.160/27\n2a02:d3c0::/29\n');
    build({ maxmindCity: testData('GeoIP2-City-Test'), maxmindAsn: testData('GeoLite2-ASN-Test'), proxyLists: [list] }, () => {}, dir);
    const built = new GeoDatabase(readFileSync(join(dir, 'ipgeo.mmdb')));
    const flags = (address: string) => {
      const record = everyField(built, address);
      return [record?.isProxy, record?.isVpn, record?.isTor, record?.isRelay, record?.isHosting];
    };
    for (const address of ['81.2.69.160', '81.2.69.191', '2a02:d3c0::', '2a02:d3c7:ffff:ffff:ffff:ffff:ffff:ffff'])
      expect(flags(address), address).toEqual([true, false, false, false, false]);
    for (const address of ['81.2.69.159', '81.2.69.192', '2a02:d3bf:ffff:ffff:ffff:ffff:ffff:ffff', '2a02:d3c8::']) {
      const [proxy] = flags(address);
      expect(proxy ?? false, address).toBe(false);
    }
  });
});

const COMPILED = new URL('../../data/out/ipgeo.mmdb', import.meta.url);

describe.runIf(existsSync(COMPILED))('the default build against the GeoLite2 City file it was built from', () => {
  it('answers the native radius and EU membership, and a network within the native one and the ASN range together', () => {
    const database = new GeoDatabase(readFileSync(COMPILED));
    const native = new Reader<never>(gunzipSync(readFileSync(geolite2CityFile())));
    const asnRanges = (file: string) =>
      (parse(readFileSync(new URL(`../../node_modules/@ip-location-db/asn/${file}`, import.meta.url)), { relax_column_count: true }) as string[][]).map(
        ([first, last, asn]) => ({ first: numberOf(first as string), last: numberOf(last as string), asn: asn as string }),
      );
    const ranges = { 4: asnRanges('asn-ipv4.csv'), 6: asnRanges('asn-ipv6.csv') };
    /** The ASN row holding `value`, and the range of addresses around it that one row holds, or that no row does (rows sorted by start). */
    const asnRow = (value: bigint, ipv4: boolean) => {
      const rows = ranges[ipv4 ? 4 : 6];
      let lo = 0;
      let hi = rows.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const row = rows[mid] as (typeof rows)[number];
        if (value < row.first) hi = mid - 1;
        else if (value > row.last) lo = mid + 1;
        else return { asn: row.asn, first: row.first, last: row.last };
      }
      // Between rows hi and lo.
      const end = (1n << (ipv4 ? 32n : 128n)) - 1n;
      return {
        asn: undefined,
        first: hi >= 0 ? (rows[hi] as (typeof rows)[number]).last + 1n : 0n,
        last: lo < rows.length ? (rows[lo] as (typeof rows)[number]).first - 1n : end,
      };
    };
    const random = seededRandom(3_901);
    let compared = 0;
    for (let i = 0; i < 4_000; i++) {
      const ipv4 = i % 4 !== 0;
      const value = ipv4
        ? BigInt(Math.floor(random() * 2 ** 32))
        : (BigInt(0x2000 + Math.floor(random() * 0x1000)) << 112n) | (BigInt(Math.floor(random() * 2 ** 32)) << 80n);
      const address = textOf(value, ipv4);
      const record = everyField(database, address);
      const [raw, nativeLength] = native.getWithPrefixLength(address);
      if (record === undefined || raw === null) continue;
      const city = raw as {
        country?: { is_in_european_union?: boolean; iso_code?: string };
        registered_country?: { is_in_european_union?: boolean };
        location?: { accuracy_radius?: number };
      };
      expect(record.accuracyRadius, address).toBe(city.location?.accuracy_radius ?? 0);
      expect(record.isEu, address).toBe((city.country?.iso_code ? city.country : city.registered_country)?.is_in_european_union === true);
      // Where the location and the ASN row (or the gap between rows) are both the address's: the largest CIDR within both, which the answer's network holds.
      const row = asnRow(value, ipv4);
      let length = nativeLength;
      const block = (n: number) => ends(`${address}/${n}`);
      while (block(length).first < row.first || block(length).last > row.last) length++;
      const [network, answered] = ipaddr.parseCIDR(record.network as string);
      expect(answered, `${address}: ${record.network} within the native /${nativeLength}`).toBeLessThanOrEqual(length);
      expect(ipaddr.parse(address).match(network, answered), `${address} in ${record.network}`).toBe(true);
      // And no wider than the native data allows: its first and last addresses have the address's location and ASN.
      const { first, last } = ends(record.network as string);
      for (const end of [first, last]) {
        const at = textOf(end, ipv4);
        expect(cityKey(native.get(at) as Record<string, unknown> | null), `${at}, an end of ${record.network} for ${address}`).toBe(
          cityKey(raw as Record<string, unknown>),
        );
        expect(asnRow(end, ipv4).asn, `${at}, an end of ${record.network}`).toBe(row.asn);
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(1_000);
  }, 120_000);
});
