/**
 * @module A build's ASN object as the current record publishes it (docs/storage.md): the entry that names
 * it in its version, uploaded before the record that names it and deleted with its version; whether
 * a bucket's version still lacks it (a version published before builds had one), which a publish adds;
 * and the refusal of another object for a version that has one.
 */
import { asnObjectKey, type CurrentRecord, type PublishedAsn } from '../../src/geo/published.ts';

/** A build's ASN object to publish: what the current record says of it (without its key), and the body to upload. */
export interface PublicationAsn<Body> extends Omit<PublishedAsn, 'key'> {
  readonly body: Body;
}

/** The current record's entry of a version's ASN object. */
export function asnEntry(version: string, object: PublicationAsn<unknown>): PublishedAsn {
  const { bytes, sha256, indexBytes, indexSha256, blockBytes, blocks } = object;
  return { key: asnObjectKey(version), bytes, sha256, indexBytes, indexSha256, blockBytes, blocks };
}

/**
 * Whether `record` holds `version` with no ASN object at all (a version published before builds had
 * one) while the build has one: publishing adds it. A version that has one is never given another
 * ({@link asnObjectRefusal}).
 */
export function lacksAsnObject(record: CurrentRecord | null, version: string, object: PublicationAsn<unknown> | undefined): boolean {
  const entry = record?.versions.find((v) => v.version === version);
  return entry !== undefined && object !== undefined && entry.asn === undefined;
}

/**
 * Why the build's ASN object `object` cannot be published as `version`: the version is in `record` with
 * another ASN object (another SHA-256), which isolates may be answering from, its index held against
 * the published digests, so it is never replaced in place; undefined when it may be published.
 */
export function asnObjectRefusal(record: CurrentRecord | null, version: string, object: PublicationAsn<unknown> | undefined): string | undefined {
  const published = record?.versions.find((v) => v.version === version)?.asn;
  if (published === undefined || object === undefined || published.sha256 === object.sha256) return undefined;
  return (
    `version ${version} is already published with another ASN object (SHA-256 ${published.sha256}, not ${object.sha256}); ` +
    'a published ASN object is never replaced: publish it with a build of another version'
  );
}

/** `record` with the ASN object `object` in its entries of `version` (its `versions`, and `current` when it is that one). */
export function withAsnObject(record: CurrentRecord, version: string, object: PublicationAsn<unknown>): CurrentRecord {
  const asn = asnEntry(version, object);
  const add = <V extends CurrentRecord['current']>(entry: V): V => (entry.version === version ? { ...entry, asn } : entry);
  return { ...record, current: add(record.current), versions: record.versions.map(add) };
}
