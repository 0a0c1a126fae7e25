/**
 * @module What `data:diff` compares of an answer: the fields of a record that a change of data moves
 * (place, coordinates, ASN and its organisation, flags, radius), read with the Worker's own reader, and which of them differ
 * between two answers. Coordinates differ when they are over {@link MOVED_KM} apart.
 */
// The package is CommonJS: Node's ESM loader gives it as a default export (the Worker's bundler also by name).
import geographiclib from 'geographiclib-geodesic';
import type { GeoDatabase } from '../../src/geo/database.ts';
import type { RecordParts } from '../../src/geo/record-parts.ts';
import { FLAG_BIT, PROXY_BITS } from '../../src/geo/schema.ts';

/** The fields compared, in the order tables list them; each names the answer's field it moves. */
export const DIFF_FIELDS = [
  'countryCode',
  'regionCode',
  'cityName',
  'coordinates',
  'asn',
  'organization',
  'isVpn',
  'isTor',
  'isRelay',
  'isHosting',
  'isProxy',
  'accuracyRadius',
] as const;

/** One of {@link DIFF_FIELDS}. */
export type DiffField = (typeof DIFF_FIELDS)[number];

/** The bit of each field in a mask of changed fields. */
const BIT: Readonly<Record<DiffField, number>> = Object.fromEntries(DIFF_FIELDS.map((field, index) => [field, 1 << index])) as Record<DiffField, number>;

/** Kilometres two positions must be apart to count as moved: a city's width, and more than coordinates rounded to four decimals move. */
export const MOVED_KM = 50;

/** The facts of one answer; `answered` false (every field empty) where the data has no record. */
export interface AnswerFacts {
  readonly answered: boolean;
  /** ISO 3166-1 alpha-2, or ''. */
  readonly countryCode: string;
  /** ISO 3166-2 code without its country, or ''. */
  readonly regionCode: string;
  /** English name, or ''. */
  readonly cityName: string;
  /** WGS84 degrees; both 0 when the record has no position. */
  readonly latitude: number;
  readonly longitude: number;
  readonly asn: number;
  /** The ASN's organisation as the routing source names it, or ''. */
  readonly organization: string;
  /** The answer's flags as `FLAG_BIT`s (`src/geo/schema.ts`): vpn, tor, relay, hosting, and proxy for isProxy (any but hosting). */
  readonly flags: number;
  /** Kilometres, 0 when none. */
  readonly accuracyRadius: number;
}

/** The facts where a build has no record. */
export const NO_ANSWER: AnswerFacts = Object.freeze({
  answered: false,
  countryCode: '',
  regionCode: '',
  cityName: '',
  latitude: 0,
  longitude: 0,
  asn: 0,
  organization: '',
  flags: 0,
  accuracyRadius: 0,
});

/** The facts of the records of one database file, each record decoded once. */
export class FactsReader {
  private readonly facts = new Map<number, AnswerFacts>();
  private readonly parts: RecordParts = { location: -1, network: -1, accuracyRadius: 0, flags: 0, provider: -1 };

  constructor(readonly database: GeoDatabase) {}

  /** The facts of the record at data offset `offset`, or of no answer for -1. */
  at(offset: number): AnswerFacts {
    if (offset < 0) return NO_ANSWER;
    let facts = this.facts.get(offset);
    if (facts !== undefined) return facts;
    const parts = this.database.partsAt(offset, this.parts);
    const location = parts.location >= 0 ? this.database.locationAt(parts.location) : undefined;
    const network = parts.network >= 0 ? this.database.networkAt(parts.network) : undefined;
    const stored = parts.flags & (FLAG_BIT.vpn | FLAG_BIT.tor | FLAG_BIT.relay | FLAG_BIT.hosting);
    facts = {
      answered: true,
      countryCode: location?.countryCode ?? '',
      regionCode: location?.regionCode ?? '',
      cityName: location?.cityName ?? '',
      latitude: location?.latitude ?? 0,
      longitude: location?.longitude ?? 0,
      asn: network?.asn ?? 0,
      organization: network?.organization ?? '',
      flags: stored | ((parts.flags & PROXY_BITS) !== 0 ? FLAG_BIT.proxy : 0),
      accuracyRadius: parts.accuracyRadius,
    };
    this.facts.set(offset, facts);
    return facts;
  }
}

/** Kilometres between positions, remembered: the same pairs of places recur across networks. */
const distances = new Map<string, number>();

function positionsMoved(a: AnswerFacts, b: AnswerFacts): boolean {
  const hasA = a.latitude !== 0 || a.longitude !== 0;
  const hasB = b.latitude !== 0 || b.longitude !== 0;
  if (hasA !== hasB) return true;
  if (!hasA || (a.latitude === b.latitude && a.longitude === b.longitude)) return false;
  const key = `${a.latitude},${a.longitude},${b.latitude},${b.longitude}`;
  let km = distances.get(key);
  if (km === undefined) {
    km = (geographiclib.Geodesic.WGS84.Inverse(a.latitude, a.longitude, b.latitude, b.longitude).s12 ?? 0) / 1000;
    distances.set(key, km);
  }
  return km > MOVED_KM;
}

/** The fields that differ between two answers, as a mask of {@link DiffField} bits. */
export function changedFields(a: AnswerFacts, b: AnswerFacts): number {
  if (a === b) return 0;
  let mask = 0;
  if (a.countryCode !== b.countryCode) mask |= BIT.countryCode;
  if (a.countryCode !== b.countryCode || a.regionCode !== b.regionCode) mask |= BIT.regionCode;
  if (a.countryCode !== b.countryCode || a.regionCode !== b.regionCode || a.cityName !== b.cityName) mask |= BIT.cityName;
  if (positionsMoved(a, b)) mask |= BIT.coordinates;
  if (a.asn !== b.asn) mask |= BIT.asn;
  if (a.organization !== b.organization) mask |= BIT.organization;
  const flags = a.flags ^ b.flags;
  if (flags & FLAG_BIT.vpn) mask |= BIT.isVpn;
  if (flags & FLAG_BIT.tor) mask |= BIT.isTor;
  if (flags & FLAG_BIT.relay) mask |= BIT.isRelay;
  if (flags & FLAG_BIT.hosting) mask |= BIT.isHosting;
  if (flags & FLAG_BIT.proxy) mask |= BIT.isProxy;
  if (a.accuracyRadius !== b.accuracyRadius) mask |= BIT.accuracyRadius;
  return mask;
}

/** The fields of a mask, in {@link DIFF_FIELDS} order. */
export function fieldsOf(mask: number): DiffField[] {
  return DIFF_FIELDS.filter((field) => (mask & BIT[field]) !== 0);
}

/** An answer in a few words, for a table: `GB ENG London 51.5,-0.1 AS15169 "Google LLC" vpn+hosting 100 km`, or `no answer`. */
export function describeFacts(facts: AnswerFacts): string {
  if (!facts.answered) return 'no answer';
  const flags = (['vpn', 'tor', 'relay', 'hosting'] as const).filter((flag) => facts.flags & FLAG_BIT[flag]).join('+');
  const position = facts.latitude !== 0 || facts.longitude !== 0 ? `${facts.latitude},${facts.longitude}` : '';
  return [
    facts.countryCode || '(no country)',
    facts.regionCode,
    facts.cityName,
    position,
    facts.asn ? `AS${facts.asn}` : '',
    facts.organization ? `"${facts.organization}"` : '',
    flags,
    facts.accuracyRadius ? `${facts.accuracyRadius} km` : '',
  ]
    .filter(Boolean)
    .join(' ');
}
