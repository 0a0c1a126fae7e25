/**
 * @module The one renderer of a found record (JSON or XML, for a view of fields and language, single
 * or bulk) and of the answer bodies around records, in UTF-8 text (`format/utf8.ts`) that a route sends
 * (`withUtf8Body`). A body is a list of the pieces the entries keep, joined once: one copy of each
 * piece, not a tree of concatenations to flatten (docs/hot-path.md).
 */
import { type Utf8, utf8 } from '../format/utf8.ts';
import { xmlDocument, xmlElement } from '../format/xml.ts';
import { FLAG_BIT, PROXY_BITS } from '../geo/schema.ts';
import { type ZoneTime, zoneTime } from '../reference/local-time.ts';
import { type Format, fragment } from './entries.ts';
import { BULK_FIELDS, DEFAULT_FIELDS, EVERY_FIELD, FIELD_INDEX, FIELDS, type FieldName, type View } from './fields.ts';
import type { Found, LookupFailure, Outcome, Rendered } from './pipeline.ts';

const [OPEN, CLOSE, COMMA, ITEM_END] = ['{', '}', ',', '</item>'].map(utf8) as [Utf8, Utf8, Utf8, Utf8];
const JSON_START = { 4: utf8('{"ipVersion":4,"ipAddress":"'), 6: utf8('{"ipVersion":6,"ipAddress":"') };
const JSON_PROXY = { true: utf8('"isProxy":true}'), false: utf8('"isProxy":false}') };
const XML = { single: [xmlDocument('<response>'), '</response>'], bulk: [xmlDocument('<response><results>'), '</results></response>'] } as const;

/** The fields answered only when asked for: `isVpn` to `localTime`, after the twenty. */
const EXTRA_FIELDS = FIELDS.slice(FIELD_INDEX.isProxy + 1);

const BOOLEAN_FIELDS = ['isProxy', 'isVpn', 'isTor', 'isRelay', 'isHosting', 'isEu', 'isDst'] as const;

/** The boolean fields of a record, each answered from its flag's bit, or from its country or zone (`isEu`, `isDst`). */
type BooleanField = (typeof BOOLEAN_FIELDS)[number];

/** Each boolean field rendered in `format`, false then true. */
function booleansOf(format: Format): { readonly [name in BooleanField]: readonly [Utf8, Utf8] } {
  return Object.fromEntries(BOOLEAN_FIELDS.map((name) => [name, [fragment(format, name, false), fragment(format, name, true)]])) as {
    [name in BooleanField]: [Utf8, Utf8];
  };
}

/** The boolean fields rendered, by format: a handful of constant texts. */
const BOOLEANS = { json: booleansOf('json'), xml: booleansOf('xml') } as const;

/** The flag bit of each flag field (docs/api.md defines them); isProxy is any of {@link PROXY_BITS}. */
const FLAG_FIELDS = { isVpn: FLAG_BIT.vpn, isTor: FLAG_BIT.tor, isRelay: FLAG_BIT.relay, isHosting: FLAG_BIT.hosting } as const;

/**
 * A field of {@link EXTRA_FIELDS} of a found record, rendered. `time` is the local time in the record's
 * first zone at the view's instant (undefined: it has none, or the runtime does not know it).
 */
function extraFragment(format: Format, name: FieldName, found: Found, time: ZoneTime | undefined): Utf8 {
  const { record } = found;
  switch (name) {
    case 'isVpn':
    case 'isTor':
    case 'isRelay':
    case 'isHosting':
      return BOOLEANS[format][name][(record.flags & FLAG_FIELDS[name]) === 0 ? 0 : 1];
    case 'hostingProvider':
      return format === 'json' ? (`"hostingProvider":${record.provider.json}` as Utf8) : fragment(format, name, record.provider.name);
    case 'accuracyRadius':
      return fragment(format, name, record.accuracyRadius);
    case 'network': {
      // CIDR text is ASCII and holds nothing to escape: written as it is.
      const network = found.database.networkOf(found.address);
      return (format === 'json' ? `"network":"${network}"` : `<network>${network}</network>`) as Utf8;
    }
    case 'isEu':
      return BOOLEANS[format].isEu[record.location.country.isEu ? 1 : 0];
    case 'utcOffset':
      return fragment(format, name, time?.utcOffset ?? '');
    case 'isDst':
      return BOOLEANS[format].isDst[time?.isDst ? 1 : 0];
    case 'localTime':
      return fragment(format, name, time?.localTime ?? '');
    default:
      throw new RangeError(`${name} is not a field answered only when asked for`);
  }
}

/** The local time of a found record's first time zone at `now`, when `fields` asks for one of its fields. */
function timeOf(found: Found, fields: number, now: number): ZoneTime | undefined {
  const asked = fields & ((1 << FIELD_INDEX.utcOffset) | (1 << FIELD_INDEX.isDst) | (1 << FIELD_INDEX.localTime));
  return asked === 0 ? undefined : zoneTime(found.record.location.zones.timeZones[0] ?? '', now);
}

/**
 * Appends to `out` the pieces of a found record in `format` for `view`: in JSON the record object, in
 * XML its field elements (the content of a `response` or bulk `item` element). Joined, they are exactly
 * the UTF-8 of what `JSON.stringify` and `toXml` write for the record object of those fields
 * (`test/node/lookup-answers.test.ts` holds it to that). A record that its shard rendered is that text.
 */
function writeRecord(out: Utf8[], found: Found | Rendered, format: Format, view: View): void {
  if (found.kind === 'rendered') {
    const text = found[format];
    if (text === undefined) throw new Error(`the shard rendered no ${format} for this record`);
    out.push(text);
    return;
  }
  const { address, record } = found;
  const { fields, language } = view;
  const { location, network } = record;
  const proxy = (record.flags & PROXY_BITS) !== 0;
  if (format === 'json' && (fields === DEFAULT_FIELDS || fields === BULK_FIELDS || fields === EVERY_FIELD)) {
    // The whole record, as nearly every client asks: runs of members that the entries keep, each ending
    // in its comma, the country's shared by every location in it. A canonical address is ASCII.
    const { country } = location;
    out.push(JSON_START[address.version], address.canonical as Utf8, location.jsonPoint, country.jsonHead(language), location.zones.json);
    // The default record ends with `isProxy` and its brace; every field goes on after it.
    const every = fields === EVERY_FIELD;
    const proxyMember = every ? BOOLEANS.json.isProxy[proxy ? 1 : 0] : JSON_PROXY[`${proxy}`];
    out.push(location.jsonPlace(language, fields !== BULK_FIELDS), country.jsonTail(language), network.json, proxyMember);
    if (every) {
      const time = timeOf(found, fields, view.now ?? Date.now());
      for (const name of EXTRA_FIELDS) out.push(COMMA, extraFragment('json', name, found, time));
      out.push(CLOSE);
    }
    return;
  }
  if (format === 'json') out.push(OPEN);
  const time = timeOf(found, fields, view.now ?? Date.now());
  for (let i = 0, first = true; i < FIELDS.length; i++) {
    const name = FIELDS[i] as FieldName;
    if ((fields & (1 << i)) === 0) continue;
    if (format === 'json' && !first) out.push(COMMA);
    first = false;
    if (name === 'ipVersion' || name === 'ipAddress') out.push(fragment(format, name, name === 'ipVersion' ? address.version : address.canonical));
    else if (name === 'asn' || name === 'asnOrganization') out.push(network.fragment(format, name));
    else if (name === 'isProxy') out.push(BOOLEANS[format].isProxy[proxy ? 1 : 0]);
    else if (i > FIELD_INDEX.isProxy) out.push(extraFragment(format, name, found, time));
    else out.push(location.fragment(format, name, language));
  }
  if (format === 'json') out.push(CLOSE);
}

/**
 * The text of a found record alone ({@link writeRecord}): what a shard Worker answers the app, which
 * puts it into its answer bodies as it is.
 */
export function recordText(found: Found, format: Format, view: View): Utf8 {
  const out: Utf8[] = [];
  writeRecord(out, found, format, view);
  return out.join('') as Utf8;
}

/**
 * The single lookup's answer body ({@link writeRecord}): in JSON the record, in XML the XML document whose `response` holds its elements.
 *
 * @example singleBody(found, 'json', { fields: FIELD.countryName | FIELD.cityName, language: LANGUAGES.indexOf('ja') }) // the UTF-8 of '{"countryName":"英国","cityName":"…"}'
 */
export function singleBody(found: Found | Rendered, format: Format, view: View): Utf8 {
  const out = (format === 'json' ? [] : [XML.single[0]]) as Utf8[];
  writeRecord(out, found, format, view);
  if (format === 'xml') out.push(XML.single[1] as Utf8);
  return out.join('') as Utf8;
}

/** A key that JSON and XML write as it is (ASCII, nothing to escape), as an address nearly always is. */
const PLAIN_KEY = /^[0-9A-Za-z.:]*$/;

/**
 * The bulk answer's body (docs/specification.md, 4.3): in JSON an object keyed by the addresses as sent (`keys`, any text), in
 * XML `response` > `results` > one `item` per address with its `ip` attribute. Each holds the record of
 * `outcomes[i]` when found ({@link writeRecord}), else what `failed` writes for it (a problem object:
 * JSON text or the `problem` element, in UTF-8).
 */
export function bulkBody(format: Format, keys: readonly string[], outcomes: readonly Outcome[], view: View, failed: (f: LookupFailure) => Utf8): Utf8 {
  const out = [format === 'json' ? OPEN : XML.bulk[0]] as Utf8[];
  keys.forEach((key, i) => {
    const plain = PLAIN_KEY.test(key);
    if (format === 'xml') out.push(plain ? (`<item ip="${key}">` as Utf8) : utf8(xmlElement('item', { ip: key }, '').slice(0, -ITEM_END.length)));
    else out.push((i === 0 ? '' : ',') as Utf8, plain ? (`"${key}":` as Utf8) : utf8(`${JSON.stringify(key)}:`));
    const outcome = outcomes[i] as Outcome;
    if (outcome.kind === 'found' || outcome.kind === 'rendered') writeRecord(out, outcome, format, view);
    else out.push(failed(outcome));
    if (format === 'xml') out.push(ITEM_END);
  });
  out.push(format === 'json' ? CLOSE : (XML.bulk[1] as Utf8));
  return out.join('') as Utf8;
}
