/**
 * @module The one renderer of a found record (JSON or XML, for a view of fields and language, single
 * or bulk) and of the answer bodies around records, in UTF-8 text (`format/utf8.ts`) that a route sends
 * (`withUtf8Body`). A body is a list of the pieces the entries keep, joined once: one copy of each
 * piece, not a tree of concatenations to flatten (docs/hot-path.md).
 */
import { type Utf8, utf8 } from '../format/utf8.ts';
import { xmlDocument, xmlElement } from '../format/xml.ts';
import { type Format, fragment } from './entries.ts';
import { ALL_FIELDS, BULK_FIELDS, FIELDS, type View } from './fields.ts';
import type { Found, LookupFailure, Outcome, Rendered } from './pipeline.ts';

const [OPEN, CLOSE, COMMA, ITEM_END] = ['{', '}', ',', '</item>'].map(utf8) as [Utf8, Utf8, Utf8, Utf8];
const JSON_START = { 4: utf8('{"ipVersion":4,"ipAddress":"'), 6: utf8('{"ipVersion":6,"ipAddress":"') };
const JSON_PROXY = { true: utf8('"isProxy":true}'), false: utf8('"isProxy":false}') };
const XML = { single: [xmlDocument('<response>'), '</response>'], bulk: [xmlDocument('<response><results>'), '</results></response>'] } as const;

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
  if (format === 'json' && (fields === ALL_FIELDS || fields === BULK_FIELDS)) {
    // The whole record, as nearly every client asks: runs of members that the entries keep, each ending
    // in its comma, the country's shared by every location in it. A canonical address is ASCII.
    const { country } = location;
    out.push(JSON_START[address.version], address.canonical as Utf8, location.jsonPoint, country.jsonHead(language), location.zones.json);
    out.push(location.jsonPlace(language, fields === ALL_FIELDS), country.jsonTail(language), network.json, JSON_PROXY[`${record.proxy}`]);
    return;
  }
  if (format === 'json') out.push(OPEN);
  for (let i = 0, first = true; i < FIELDS.length; i++) {
    const name = FIELDS[i] as (typeof FIELDS)[number];
    if ((fields & (1 << i)) === 0) continue;
    if (format === 'json' && !first) out.push(COMMA);
    first = false;
    if (name === 'ipVersion' || name === 'ipAddress') out.push(fragment(format, name, name === 'ipVersion' ? address.version : address.canonical));
    else if (name === 'asn' || name === 'asnOrganization') out.push(network.fragment(format, name));
    else out.push(name === 'isProxy' ? fragment(format, name, record.proxy) : location.fragment(format, name, language));
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
