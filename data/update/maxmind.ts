/**
 * @module MaxMind's download API, as geoipupdate uses it: `GET {base}/geoip/databases/{edition}/download
 * ?suffix=tar.gz` with HTTP Basic authentication (account ID, licence key), redirects followed, and the
 * archive's SHA-256 from `suffix=tar.gz.sha256` checked before use. The archive is kept in the cache
 * beside its database; an edition whose `.sha256` equals the cached archive's is not downloaded again,
 * once the cached archive matches it and its database is the archive's (extracted again).
 */
import { fileOf, mmdbMetadata, sha256Of } from './archive.ts';
import type { DownloadCache, StagedSource } from './cache.ts';
import { download, UpdateError } from './download.ts';

/** The editions fetched unless `--editions` names others. */
export const DEFAULT_EDITIONS = ['GeoLite2-City', 'GeoLite2-ASN'] as const;
/** MaxMind's download host, unless `MAXMIND_BASE_URL` names another (tests, mirrors). */
export const MAXMIND_BASE_URL = 'https://download.maxmind.com';

/** What the build does with an edition, by its database type. */
export type EditionRole = 'city' | 'asn' | 'anonymous-ip';

/** An account and where to reach MaxMind. */
export interface MaxMindAccount {
  readonly accountId: string;
  readonly licenseKey: string;
  readonly baseUrl: string;
}

/** The archive's name in the edition's cache folder. */
const ARCHIVE = 'source.tar.gz';

/** The largest `.sha256` answer accepted: one line of 64 hex digits and the archive's name. */
const CHECKSUM_MAX_BYTES = 1024;
/**
 * The largest archive accepted. GeoIP2 City, the largest edition the build reads, is an archive of
 * some 60 MiB (MaxMind's database sizes, 2026); this leaves it room to grow eightfold, while an
 * endless or bloated answer stops here instead of filling the runner's memory.
 */
const ARCHIVE_MAX_BYTES = 512 * 1_048_576;

const CREDENTIALS =
  'check MAXMIND_ACCOUNT_ID and MAXMIND_LICENSE_KEY (the account ID and a licence key of https://www.maxmind.com/en/accounts/current/license-key)';

/** The build's use of a MaxMind DB of `databaseType`, or undefined when it has none. */
function roleOf(databaseType: string): EditionRole | undefined {
  if (/Anonymous-IP/i.test(databaseType)) return 'anonymous-ip';
  if (/ASN/i.test(databaseType)) return 'asn';
  if (/City|Country/i.test(databaseType)) return 'city';
  return undefined;
}

/**
 * Fetches one edition into the staging folder, or finds it unchanged in the cache.
 *
 * @returns the staged source, whose folder holds `{edition}.mmdb`, and the build's use of it.
 * @throws UpdateError for refused credentials (401, naming the variables), a download limit (403, 429),
 *   a checksum mismatch, an archive that is truncated or holds no MaxMind DB of a type the build reads,
 *   a timeout, or a database older than the cached one.
 */
export async function fetchEdition(
  edition: string,
  account: MaxMindAccount,
  cache: DownloadCache,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<StagedSource & { role: EditionRole; file: string }> {
  const id = `maxmind/${edition}`;
  const url = `${account.baseUrl.replace(/\/+$/, '')}/geoip/databases/${encodeURIComponent(edition)}/download?suffix=`;
  const headers = { Authorization: `Basic ${Buffer.from(`${account.accountId}:${account.licenseKey}`).toString('base64')}` };
  const options = { headers, timeoutMs, onUnauthorized: CREDENTIALS };
  const file = `${edition}.mmdb`;

  const checksum = (await download(`${url}tar.gz.sha256`, { ...options, what: `${edition} checksum`, maxBytes: CHECKSUM_MAX_BYTES })).toString('utf8');
  const expected = /^([0-9a-f]{64})(\s|$)/i.exec(checksum.trim())?.[1]?.toLowerCase();
  // What was fetched is not quoted: an answer that is not a checksum may be anyone's page.
  if (!expected) throw new UpdateError(`${edition} checksum: the answer is not a SHA-256 line`);
  const cached = cache.cached(id);
  if (cached?.archiveSha256 === expected) {
    const refusal = (archive: Buffer) => (sha256Of(archive) === expected ? undefined : 'does not match the SHA-256 MaxMind publishes for it');
    const extract = async (archive: Buffer) => new Map([[file, await fileOf(archive, file, `${edition} archive`)]]);
    const reused = await cache.fromArchive(id, cached, ARCHIVE, refusal, extract);
    if (reused !== undefined) {
      log(`${edition}: unchanged since ${cached.fetchedAt} (build of ${cached.version}), its archive checked again; not downloaded`);
      return { ...reused, role: roleOf(edition) ?? 'city', file };
    }
  }

  const archive = await download(`${url}tar.gz`, { ...options, what: `${edition} archive`, maxBytes: ARCHIVE_MAX_BYTES });
  const actual = sha256Of(archive);
  if (actual !== expected) throw new UpdateError(`${edition} archive: SHA-256 ${actual} does not match the published ${expected} (damaged in transit?)`);
  const mmdb = await fileOf(archive, file, `${edition} archive`);
  const metadata = mmdbMetadata(mmdb, /./, `${file} of the ${edition} archive`);
  const role = roleOf(metadata.databaseType);
  if (!role) throw new UpdateError(`${edition} is not a type the build reads (City, Country, ASN, Anonymous-IP), by its database_type`);
  const builtOn = new Date(metadata.buildEpoch * 1000).toISOString().slice(0, 10);
  if (cached?.buildEpoch !== undefined && metadata.buildEpoch < cached.buildEpoch) {
    throw new UpdateError(`${edition}: the download was built on ${builtOn}, before the cached one (${cached.version}); keeping the cached one`);
  }
  log(`${edition}: downloaded ${(archive.length / 1048576).toFixed(1)} MiB, checksum verified, build of ${builtOn}`);
  const source = { version: builtOn, buildEpoch: metadata.buildEpoch, archiveSha256: expected, fetchedAt: new Date().toISOString() };
  return {
    ...cache.stage(
      id,
      new Map([
        [file, mmdb],
        [ARCHIVE, archive],
      ]),
      source,
    ),
    role,
    file,
  };
}
