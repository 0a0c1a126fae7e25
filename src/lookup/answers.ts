/**
 * @module The finished parts of answers, built once and shared: what a record of the compiled database
 * becomes once joined with its country's facts, and its JSON and XML text.
 *
 * An answer is the concatenation of parts that each depend on less than the whole record:
 *
 *     {"ipVersion":4,"ipAddress":"<ip>",  point  country.a  zones  place  country.b  network  proxy}
 *                                          │      └─ per country ─┘        per      per      two
 *                                          └── per location ──┘ per (country, own zone)  network  constants
 *
 * Each part is rendered by the same functions that render a whole record (`JSON.stringify`, `toXml`)
 * and cut out of their output, so the concatenation is byte for byte the whole record's rendering
 * (`test/worker/answers.test.ts` holds it to that). Parts keyed by data offset live in bounded,
 * direct-mapped caches per database: one slot per offset hash, a newer entry replaces an older one, so
 * memory stays flat whatever is asked; parts keyed by country and zone are few and kept.
 */
import { toXml, type XmlValue } from '../format/xml.ts';
import { type GeoDatabase, type GeoLocation, type GeoNetwork, NO_LOCATION, NO_NETWORK, type RecordParts } from '../geo/database.ts';
import { OffsetCache } from '../mmdb/offset-cache.ts';
import { countryFacts } from '../reference/countries.ts';

/** log2 of the slots of the per-database caches (records, locations, networks). */
export const CACHE_BITS = { records: 15, locations: 14, networks: 13 } as const;

/** A run of consecutive fields of the record, rendered in both formats once asked for. */
export class Part {
  #json: string | undefined;
  #xml: string | undefined;
  /** @param fields the part's fields, in the record's order (called at most once per format). */
  constructor(private readonly fields: () => Record<string, XmlValue>) {}
  /** `"a":1,"b":"x",`: the fields as JSON members, each followed by a comma. */
  get json(): string {
    this.#json ??= jsonMembers(this.fields());
    return this.#json;
  }
  /** `<a>1</a><b>x</b>`: the fields as XML elements. */
  get xml(): string {
    this.#xml ??= xmlElements(this.fields());
    return this.#xml;
  }
}

/** Facts of one country (or of an unknown or empty code), shared by all its locations. */
export class CountryPart {
  readonly name: string;
  readonly capital: string;
  readonly phoneCodes: readonly number[];
  readonly continentName: string;
  readonly continent: string;
  readonly currencies: readonly string[];
  readonly languages: readonly string[];
  /** `countryName`, `countryCode`, `capital`, `phoneCodes`. */
  readonly head: Part;
  /** `continent`, `continentCode`, `currencies`, `languages`. */
  readonly tail: Part;
  private readonly zones: readonly string[];
  private readonly byOwnZone = new Map<string, ZonesPart>();

  /** @param code ISO 3166-1 alpha-2 as stored, or ''. */
  constructor(readonly code: string) {
    const facts = code ? countryFacts(code) : undefined;
    this.name = facts?.name ?? '';
    this.capital = facts?.capital ?? '';
    this.phoneCodes = Object.freeze([...(facts?.phoneCodes ?? [])]);
    this.continentName = facts?.continentName ?? '';
    this.continent = facts?.continent ?? '';
    this.currencies = Object.freeze([...(facts?.currencies ?? [])]);
    this.languages = Object.freeze([...(facts?.languages ?? [])]);
    this.zones = facts?.timeZones ?? [];
    this.head = new Part(() => ({ countryName: this.name, countryCode: this.code, capital: this.capital, phoneCodes: this.phoneCodes }));
    this.tail = new Part(() => ({ continent: this.continentName, continentCode: this.continent, currencies: this.currencies, languages: this.languages }));
  }

  /** The `timeZones` of an address in this country whose own zone is `own` ('' when unknown). */
  zonesFor(own: string): ZonesPart {
    let zones = this.byOwnZone.get(own);
    if (zones === undefined) {
      zones = new ZonesPart(own ? [own, ...this.zones.filter((zone) => zone !== own)] : [...this.zones]);
      this.byOwnZone.set(own, zones);
    }
    return zones;
  }
}

/** `timeZones`: the address's own zone first, then its country's others (DESIGN.md section 2). */
export class ZonesPart extends Part {
  readonly timeZones: readonly string[];
  constructor(zones: string[]) {
    const timeZones = Object.freeze(zones);
    super(() => ({ timeZones }));
    this.timeZones = timeZones;
  }
}

const countries = new Map<string, CountryPart>();

/** The part of country `code` as stored (ISO 3166-1 alpha-2, or '' when the data has none). */
export function countryPart(code: string): CountryPart {
  let part = countries.get(code);
  if (part === undefined) {
    part = new CountryPart(code);
    countries.set(code, part);
  }
  return part;
}

/** A stored location with what it implies: its country and its zones. */
export class LocationPart {
  readonly country: CountryPart;
  readonly zones: ZonesPart;
  /** `latitude`, `longitude`. */
  readonly point: Part;
  /** `zipCode`, `cityName`, `regionName`, `regionCode`. */
  readonly place: Part;

  constructor(readonly location: GeoLocation) {
    this.country = countryPart(location.countryCode);
    this.zones = this.country.zonesFor(location.timeZone);
    this.point = new Part(() => ({ latitude: location.latitude, longitude: location.longitude }));
    this.place = new Part(() => ({ zipCode: location.postalCode, cityName: location.cityName, regionName: location.regionName, regionCode: location.regionCode }));
  }
}

/** A stored network: `asn` (a decimal string, '' when unknown) and `asnOrganization`. */
export class NetworkPart extends Part {
  readonly asn: string;
  readonly organization: string;
  constructor(network: GeoNetwork) {
    const asn = network.asn ? String(network.asn) : '';
    super(() => ({ asn, asnOrganization: network.organization }));
    this.asn = asn;
    this.organization = network.organization;
  }
}

/** What one data offset answers, its parts shared with every record that shares them. */
export interface RecordAnswer {
  readonly location: LocationPart;
  readonly network: NetworkPart;
  readonly isProxy: boolean;
}

const EMPTY_LOCATION = new LocationPart(NO_LOCATION);
const EMPTY_NETWORK = new NetworkPart(NO_NETWORK);

/** The answers of one loaded database (offsets mean nothing in another). */
export class Answers {
  private readonly records = new OffsetCache<RecordAnswer>(CACHE_BITS.records);
  private readonly locations = new OffsetCache<LocationPart>(CACHE_BITS.locations);
  private readonly networks = new OffsetCache<NetworkPart>(CACHE_BITS.networks);
  private readonly parts: RecordParts = { location: -1, network: -1, proxy: false };

  constructor(readonly database: GeoDatabase) {}

  /**
   * The answer for the record at `offset`.
   *
   * @throws ProblemError `DATA_UNAVAILABLE` when the record is corrupt.
   */
  at(offset: number): RecordAnswer {
    let answer = this.records.get(offset);
    if (answer === undefined) {
      const parts = this.database.partsAt(offset, this.parts);
      answer = { location: this.location(parts.location), network: this.network(parts.network), isProxy: parts.proxy };
      this.records.set(offset, answer);
    }
    return answer;
  }

  private location(offset: number): LocationPart {
    if (offset < 0) return EMPTY_LOCATION;
    let part = this.locations.get(offset);
    if (part === undefined) {
      part = new LocationPart(this.database.locationAt(offset));
      this.locations.set(offset, part);
    }
    return part;
  }

  private network(offset: number): NetworkPart {
    if (offset < 0) return EMPTY_NETWORK;
    let part = this.networks.get(offset);
    if (part === undefined) {
      part = new NetworkPart(this.database.networkAt(offset));
      this.networks.set(offset, part);
    }
    return part;
  }
}

/** `{"a":1}` → `"a":1,` */
function jsonMembers(fields: Record<string, XmlValue>): string {
  const json = JSON.stringify(fields);
  return json.length > 2 ? `${json.slice(1, -1)},` : '';
}

const XML_OPEN = '<?xml version="1.0" encoding="UTF-8"?><p>';

/** `{ a: 1 }` → `<a>1</a>`, cut out of the whole rendering so that escaping and sanitising are the same. */
function xmlElements(fields: Record<string, XmlValue>): string {
  const xml = toXml('p', fields);
  if (!xml.startsWith(XML_OPEN) || !xml.endsWith('</p>')) throw new Error(`unexpected XML rendering ${xml.slice(0, 80)}`);
  return xml.slice(XML_OPEN.length, -'</p>'.length);
}

/** The JSON and XML around the parts: the start for each IP version, and the end for each proxy flag. */
export const FRAME = {
  json: {
    start: { 4: '{"ipVersion":4,"ipAddress":"', 6: '{"ipVersion":6,"ipAddress":"' },
    afterAddress: '",',
    end: { true: `${JSON.stringify({ isProxy: true }).slice(1)}`, false: `${JSON.stringify({ isProxy: false }).slice(1)}` },
  },
  xml: {
    start: {
      4: `<?xml version="1.0" encoding="UTF-8"?><response>${xmlElements({ ipVersion: 4 })}<ipAddress>`,
      6: `<?xml version="1.0" encoding="UTF-8"?><response>${xmlElements({ ipVersion: 6 })}<ipAddress>`,
    },
    afterAddress: '</ipAddress>',
    end: { true: `${xmlElements({ isProxy: true })}</response>`, false: `${xmlElements({ isProxy: false })}</response>` },
  },
} as const;
