/**
 * @module The build's sources and its failure modes: MaxMind's native City / ASN / Anonymous-IP
 * test databases compiled and checked against their source JSON (read independently), and corrupt,
 * missing or mistyped sources stopping the build with nothing written.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reader } from 'mmdb-lib';
import Decoder from 'mmdb-lib/lib/decoder';
import { describe, expect, it } from 'vitest';
import { build } from '../../data/build.ts';
import { compile } from '../../data/compile.ts';
import { ipLocationDbAsn } from '../../data/sources/ip-location-db.ts';
import { maxmindAnonymousIp, maxmindAsn, maxmindCity } from '../../data/sources/maxmind.ts';
import { proxyList } from '../../data/sources/proxy-list.ts';
import { SourceError } from '../../data/sources/source.ts';
import { FLAG_BIT, type StoredRecord } from '../../src/geo/schema.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { geoip2Reader, orNull } from '../support/geoip2.ts';

/** The parts of MaxMind's source JSON records that the tests read. */
interface Json {
  continent?: { code?: string };
  country?: { iso_code?: string; is_in_european_union?: boolean };
  registered_country?: { iso_code?: string; is_in_european_union?: boolean };
  subdivisions?: Array<{ iso_code?: string; names?: { en?: string } }>;
  city?: { names?: { en?: string } };
  postal?: { code?: string };
  location?: { latitude: number; longitude: number; time_zone?: string; accuracy_radius?: number };
  autonomous_system_number?: number;
  autonomous_system_organization?: string;
  [flag: string]: unknown;
}
const sourceJson = (name: string): Array<[string, Json]> =>
  (JSON.parse(readFileSync(`${FIXTURES}/source-data/${name}.json`, 'utf8')) as Array<Record<string, Json>>).flatMap((item) => Object.entries(item));
/** The first address of a CIDR, in the form mmdb-lib accepts (`::1.2.3.4` stays IPv6). */
const firstAddress = (cidr: string): string => cidr.split('/')[0] as string;
const tempDir = () => mkdtempSync(join(tmpdir(), 'ipgeo-build-'));

describe('MaxMind native sources', () => {
  const { bytes } = compile({
    locations: [maxmindCity(`${FIXTURES}/test-data/GeoIP2-City-Test.mmdb`)],
    networks: [maxmindAsn(`${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb`)],
    flags: [maxmindAnonymousIp(`${FIXTURES}/test-data/GeoIP2-Anonymous-IP-Test.mmdb`)],
    buildEpoch: 1_700_000_000,
  });
  // The compiled schema is not GeoIP2's, which is all mmdb-lib's types know.
  const reader = new Reader(Buffer.from(bytes));
  const compiled = { get: (address: string) => reader.get(address) as unknown as StoredRecord | null };
  const anonymous = sourceJson('GeoIP2-Anonymous-IP-Test');
  const anonymousReader = geoip2Reader(`${FIXTURES}/test-data/GeoIP2-Anonymous-IP-Test.mmdb`);

  it('keeps every City network with its continent, country, subdivision, city, postal code, coordinates, zone and accuracy radius', () => {
    const cities = sourceJson('GeoIP2-City-Test');
    expect(cities.length).toBeGreaterThan(100);
    for (const [cidr, source] of cities) {
      const stored = compiled.get(firstAddress(cidr))?.location ?? {};
      const subdivision = source.subdivisions?.[0];
      expect(stored.continent_code ?? '', cidr).toBe(source.continent?.code ?? '');
      expect(stored.country_code ?? '', cidr).toBe(source.country?.iso_code ?? source.registered_country?.iso_code ?? '');
      expect(stored.region ?? '', cidr).toBe(subdivision?.names?.en ?? '');
      expect(stored.region_code ?? '', cidr).toBe(subdivision?.iso_code ?? '');
      expect(stored.city ?? '', cidr).toBe(source.city?.names?.en ?? '');
      expect(stored.postal_code ?? '', cidr).toBe(source.postal?.code ?? '');
      expect(stored.time_zone ?? '', cidr).toBe(source.location?.time_zone ?? '');
      expect(compiled.get(firstAddress(cidr))?.accuracy_radius ?? 0, cidr).toBe(source.location?.accuracy_radius ?? 0);
      if (source.location?.latitude !== undefined) {
        // Stored to four decimals (about 11 m), the precision of MaxMind's production data.
        expect(stored.latitude, cidr).toBe(Math.round(source.location.latitude * 10_000));
        expect(stored.longitude, cidr).toBe(Math.round(source.location.longitude * 10_000));
      }
    }
  });

  it('keeps every ASN network with its number and organisation', () => {
    const asns = sourceJson('GeoLite2-ASN-Test');
    expect(asns.length).toBeGreaterThan(100);
    for (const [cidr, source] of asns) {
      expect(compiled.get(firstAddress(cidr))?.network, cidr).toEqual({
        asn: source.autonomous_system_number,
        organization: source.autonomous_system_organization,
      });
    }
  });

  it('places in the EU exactly the countries that the City data says are in it', () => {
    const eu = new Set<string>();
    for (const [, source] of sourceJson('GeoIP2-City-Test')) {
      for (const country of [source.country, source.registered_country]) if (country?.iso_code && country.is_in_european_union) eu.add(country.iso_code);
    }
    expect(eu.size).toBeGreaterThan(3);
    const file = Buffer.from(bytes);
    const start = file.lastIndexOf(Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1')) + 14;
    const metadata = new Decoder(file, start).decode(start).value as { european_union?: string[] };
    expect(metadata.european_union).toEqual([...eu].sort());
  });

  it('sets each flag from its own field of the Anonymous-IP data, and none where it says nothing', () => {
    const seen = new Set<number>();
    for (const [cidr, source] of anonymous) {
      const stored = compiled.get(firstAddress(cidr));
      const specific = ['is_anonymous_vpn', 'is_tor_exit_node', 'is_hosting_provider', 'is_public_proxy', 'is_residential_proxy'].some(
        (f) => source[f] === true,
      );
      const expected =
        (source.is_anonymous_vpn === true ? FLAG_BIT.vpn : 0) |
        (source.is_tor_exit_node === true ? FLAG_BIT.tor : 0) |
        (source.is_hosting_provider === true ? FLAG_BIT.hosting : 0) |
        (source.is_public_proxy === true || source.is_residential_proxy === true || (source.is_anonymous === true && !specific) ? FLAG_BIT.proxy : 0);
      expect(stored?.flags ?? 0, cidr).toBe(expected);
      expect(stored?.hosting_provider, cidr).toBeUndefined();
      expect(stored?.proxy, cidr).toBeUndefined();
      seen.add(expected);
    }
    // Every flag alone, and hosting alone (which is no proxy), are in the test data.
    for (const bits of [FLAG_BIT.vpn, FLAG_BIT.hosting, FLAG_BIT.proxy]) expect(seen, String(bits)).toContain(bits);
    // An address of the City data outside every anonymising network has no flag (the test
    // database answers an empty map there, which MaxMind's reader reads as no flag set).
    const traits = orNull(() => anonymousReader.anonymousIP('2.125.160.216'));
    expect([traits?.isAnonymous, traits?.isAnonymousVpn, traits?.isPublicProxy, traits?.isTorExitNode, traits?.isResidentialProxy].some(Boolean)).toBe(false);
    expect(compiled.get('2.125.160.216')?.flags).toBeUndefined();
  });
});

describe('a failing source', () => {
  const BAD = readdirSync(`${FIXTURES}/bad-data`).filter((f) => f.endsWith('.mmdb'));

  it.each(BAD)('stops the build on %s given as --maxmind-city, writing nothing', (file) => {
    const out = tempDir();
    expect(() => build({ maxmindCity: `${FIXTURES}/bad-data/${file}`, proxyLists: [] }, () => {}, out)).toThrow(SourceError);
    expect(readdirSync(out)).toEqual([]);
  });

  it('names a missing file', () => {
    expect(() => maxmindAsn('/nonexistent/GeoLite2-ASN.mmdb')).toThrow(/--maxmind-asn \/nonexistent\/GeoLite2-ASN.mmdb: cannot read/);
  });

  it('refuses a database of the wrong kind', () => {
    expect(() => maxmindCity(`${FIXTURES}/test-data/GeoLite2-ASN-Test.mmdb`)).toThrow(/"GeoLite2-ASN" database/);
    expect(() => maxmindAnonymousIp(`${FIXTURES}/test-data/GeoIP2-City-Test.mmdb`)).toThrow(SourceError);
  });

  it('names the line of a malformed ASN row', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'package.json'), '{"version":"2.3.2026061719"}');
    writeFileSync(join(dir, 'asn-ipv4.csv'), '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."\n1.0.4.0,1.0.3.255,38803,Backwards\n');
    writeFileSync(join(dir, 'asn-ipv6.csv'), '2001::,2001::ffff,6939,Hurricane Electric LLC\n');
    const source = ipLocationDbAsn(dir);
    expect(() => source.forEach(() => {})).toThrow(/asn-ipv4.csv line 2: 1.0.4.0..1.0.3.255 is not a range/);
    writeFileSync(join(dir, 'asn-ipv4.csv'), '1.0.0.0,1.0.0.255,AS13335,x\n');
    expect(() => ipLocationDbAsn(dir).forEach(() => {})).toThrow(/line 1: ASN "AS13335"/);
    writeFileSync(join(dir, 'asn-ipv4.csv'), '1.0.0.0,1.0.0.256,13335,x\n');
    expect(() => ipLocationDbAsn(dir).forEach(() => {})).toThrow(/line 1: "1.0.0.256" is not an IP address/);
  });

  it('names the line of a malformed proxy list entry, without quoting it', () => {
    const file = join(tempDir(), 'exits.txt');
    writeFileSync(file, '# Tor exits\n1.2.3.4\n2001:db8::/32\nnot-an-address\n');
    expect(() => proxyList(file)).toThrow(/exits\.txt line 4: the entry is not an IP address or CIDR network$/);
  });

  it('reads a proxy list of addresses and networks', () => {
    const file = join(tempDir(), 'exits.txt');
    writeFileSync(file, '# Tor exits\n1.2.3.4\n\n2001:db8::/32 # a comment\n');
    const seen: [number, readonly string[]][] = [];
    const list = proxyList(file);
    list.forEach((network, { flags }) => {
      seen.push([network.prefixLength, flags]);
    });
    expect(seen).toEqual([
      [128, ['proxy']],
      [32, ['proxy']],
    ]);
    expect(list.sets).toEqual(['proxy']);
  });

  it('leaves a previous build in place when a later one fails', () => {
    const out = tempDir();
    writeFileSync(join(out, 'ipgeo.mmdb'), 'previous');
    expect(() => build({ maxmindAsn: `${FIXTURES}/bad-data/invalid-string-length.mmdb`, proxyLists: [] }, () => {}, out)).toThrow(SourceError);
    expect(readFileSync(join(out, 'ipgeo.mmdb'), 'utf8')).toBe('previous');
    expect(existsSync(join(out, 'ipgeo.manifest.json'))).toBe(false);
  });
});
