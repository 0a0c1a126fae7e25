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
 * Each part is rendered by the functions that render a whole record (`JSON.stringify`, and `toXml`
 * or, for plain text, exactly what it writes) and cut out of their output, so the concatenation is
 * byte for byte the whole record's rendering (`test/data/lookup-answers.test.ts` holds it to that).
 * Parts keyed by data offset live in the bounded caches of `answer-cache.ts`; parts keyed by country
 * and zone are few and kept here. The single JSON answer joins the run from `point` to `country.b`
 * into one text per location ({@link LocationPart.runJson}), so that it reads one string there, not five.
 */
import { toXml, type XmlValue } from '../format/xml.ts';
import type { GeoLocation, GeoNetwork } from '../geo/database.ts';
import { countryFacts } from '../reference/countries.ts';

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

/**
 * A stored location with what it implies: its country and its zones, and its own two runs of fields
 * (`latitude` … `longitude`, `zipCode` … `regionCode`) rendered once asked for (for bulk and XML
 * answers; the single JSON answer's text is {@link runJson}). One flat object with flat strings: the
 * caches hold tens of thousands.
 */
export class LocationPart implements GeoLocation {
  readonly countryCode: string;
  readonly regionName: string;
  readonly regionCode: string;
  readonly cityName: string;
  readonly postalCode: string;
  readonly latitude: number;
  readonly longitude: number;
  readonly timeZone: string;
  readonly country: CountryPart;
  readonly zones: ZonesPart;
  private pointJsonText: string | undefined = undefined;
  private placeBulkJsonText: string | undefined = undefined;
  private pointXmlText: string | undefined = undefined;
  private placeXmlText: string | undefined = undefined;

  constructor(location: GeoLocation) {
    this.countryCode = location.countryCode;
    this.regionName = location.regionName;
    this.regionCode = location.regionCode;
    this.cityName = location.cityName;
    this.postalCode = location.postalCode;
    this.latitude = location.latitude;
    this.longitude = location.longitude;
    this.timeZone = location.timeZone;
    this.country = countryPart(location.countryCode);
    this.zones = this.country.zonesFor(location.timeZone);
  }

  /** `"latitude":…,"longitude":…,` */
  get pointJson(): string {
    this.pointJsonText ??= jsonMembers(this.point());
    return this.pointJsonText;
  }
  /** `"zipCode":…,"regionName":…,`: the bulk record's run, which has no `regionCode` (spec 2.1). */
  get placeBulkJson(): string {
    this.placeBulkJsonText ??= jsonMembers(this.place(false));
    return this.placeBulkJsonText;
  }
  /** `<latitude>…</latitude><longitude>…</longitude>` */
  get pointXml(): string {
    this.pointXmlText ??= xmlElements(this.point());
    return this.pointXmlText;
  }
  /** `<zipCode>…</zipCode>…<regionCode>…</regionCode>` */
  get placeXml(): string {
    this.placeXmlText ??= xmlElements(this.place());
    return this.placeXmlText;
  }

  /**
   * `"latitude":…,"languages":[…],`: the record's whole run from the location and its country, as one
   * flat string made afresh on each call (the single JSON answer's cache in `answer-cache.ts` keeps
   * it, not this part): a lookup then reads one text for them, not five in five places of memory.
   */
  runJson(): string {
    const { country } = this;
    return [jsonMembers(this.point()), country.head.json, this.zones.json, jsonMembers(this.place()), country.tail.json].join('');
  }

  private point(): Record<string, XmlValue> {
    return { latitude: this.latitude, longitude: this.longitude };
  }
  /** @param withRegionCode false for the bulk record's run (an object rest copy is a slow path in V8). */
  private place(withRegionCode = true): Record<string, XmlValue> {
    const { postalCode: zipCode, cityName, regionName, regionCode } = this;
    return withRegionCode ? { zipCode, cityName, regionName, regionCode } : { zipCode, cityName, regionName };
  }
}

/** A stored network: `asn` (a decimal string, '' when unknown) and `asnOrganization`, rendered once asked for. */
export class NetworkPart {
  readonly asn: string;
  readonly organization: string;
  private jsonText: string | undefined = undefined;
  private xmlText: string | undefined = undefined;

  constructor(network: GeoNetwork) {
    this.asn = network.asn ? String(network.asn) : '';
    this.organization = network.organization;
  }

  /** `"asn":…,"asnOrganization":…,` */
  get json(): string {
    this.jsonText ??= jsonMembers(this.fields());
    return this.jsonText;
  }
  /** `<asn>…</asn><asnOrganization>…</asnOrganization>` */
  get xml(): string {
    this.xmlText ??= xmlElements(this.fields());
    return this.xmlText;
  }

  private fields(): Record<string, XmlValue> {
    return { asn: this.asn, asnOrganization: this.organization };
  }
}

/**
 * A flat copy of `text`. Slices and concatenations are views on their parts in V8 (a slice keeps its
 * whole parent alive); a part kept in a cache for long should be one string of its own, and `join`
 * builds one.
 */
function flat(...pieces: string[]): string {
  return pieces.join('');
}

/** `{"a":1}` → `"a":1,` */
function jsonMembers(fields: Record<string, XmlValue>): string {
  const json = JSON.stringify(fields);
  return json.length > 2 ? flat(json.slice(1, -1), ',') : '';
}

const XML_OPEN = '<?xml version="1.0" encoding="UTF-8"?><p>';

/**
 * Text that `toXml` writes as it is: no markup character it escapes (`& < > ' "`), and none that it
 * replaces because XML 1.0 cannot carry it (controls, surrogates, U+FFFE, U+FFFF).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the characters XML cannot carry is the point.
const PLAIN_XML_TEXT = /^[^&<>'"\u0000-\u001f\ud800-\udfff\ufffe\uffff]*$/;

/** `<name>text</name>` for a scalar that `toXml` writes unchanged, or undefined for any other. */
function plainElement(name: string, value: XmlValue): string | undefined {
  if (typeof value === 'string') return PLAIN_XML_TEXT.test(value) ? `<${name}>${value}</${name}>` : undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? `<${name}>${String(value)}</${name}>` : undefined;
  if (typeof value === 'boolean') return `<${name}>${value}</${name}>`;
  return undefined;
}

/**
 * `{ a: 1 }` → `<a>1</a>`. Plain values (numbers, booleans, text without anything to escape, arrays
 * of them) are written directly, as `toXml` writes them: one element per field, one per array item
 * (none for an empty array), an empty element for empty text. Anything else is cut out of `toXml`'s
 * own rendering, so that escaping and sanitising stay its. Building the XML of every new location
 * through the XML builder cost the XML route a tenth of its time (profiled).
 */
function xmlElements(fields: Record<string, XmlValue>): string {
  const out: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const items = Array.isArray(value) ? (value as readonly XmlValue[]) : [value];
    for (const item of items) {
      const element = plainElement(name, item);
      if (element === undefined) return viaBuilder(fields);
      out.push(element);
    }
  }
  return out.join('');
}

function viaBuilder(fields: Record<string, XmlValue>): string {
  const xml = toXml('p', fields);
  if (!xml.startsWith(XML_OPEN) || !xml.endsWith('</p>')) throw new Error(`unexpected XML rendering ${xml.slice(0, 80)}`);
  return flat(xml.slice(XML_OPEN.length, -'</p>'.length));
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
