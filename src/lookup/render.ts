/**
 * @module The one renderer of a found record (JSON or XML, for a view of fields and language, single
 * or bulk) and of the bulk documents around the items, in UTF-8 text (`format/utf8.ts`): a route sends
 * its bytes (`withUtf8Body`).
 */
import { jsonString } from '../format/json.ts';
import { type Utf8, utf8 } from '../format/utf8.ts';
import { xmlDocument, xmlElement } from '../format/xml.ts';
import { type Format, fragment } from './entries.ts';
import { ALL_FIELDS, BULK_FIELDS, FIELDS, type View } from './fields.ts';
import type { Found } from './pipeline.ts';

const JSON_START = { 4: '{"ipVersion":4,"ipAddress":"', 6: '{"ipVersion":6,"ipAddress":"' } as const;
const JSON_PROXY = { true: '"isProxy":true}', false: '"isProxy":false}' } as const;

/**
 * A found record in `format` for `view`: in JSON the record object, in XML its field elements (the
 * content of a `response` or bulk `item` element); exactly the UTF-8 of what `JSON.stringify` and
 * `toXml` write for the record object of those fields (`test/data/lookup-answers.test.ts` holds it to that).
 *
 * @example renderRecord(found, 'json', { fields: FIELD.countryName | FIELD.cityName, language: LANGUAGES.indexOf('ja') }) // the UTF-8 of '{"countryName":"英国","cityName":"…"}'
 */
export function renderRecord(found: Found, format: Format, view: View): Utf8 {
  const { address, record } = found;
  const { location, network } = record;
  const { fields, language } = view;
  if (format === 'json' && (fields === ALL_FIELDS || fields === BULK_FIELDS)) {
    // The whole record, as nearly every client asks: runs of members that the entries keep, each
    // ending in its comma, the country's shared by every location in it. A canonical address is ASCII
    // and needs no escape.
    const { country } = location;
    const place = location.jsonPlace(language, fields === ALL_FIELDS);
    return `${JSON_START[address.version]}${address.canonical}${location.jsonPoint}${country.jsonHead(language)}${location.zones.json}${place}${country.jsonTail(language)}${network.json}${JSON_PROXY[record.proxy ? 'true' : 'false']}` as Utf8;
  }
  const pieces: Utf8[] = [];
  for (let i = 0; i < FIELDS.length; i++) {
    if ((fields & (1 << i)) === 0) continue;
    const name = FIELDS[i] as (typeof FIELDS)[number];
    if (name === 'ipVersion') pieces.push(fragment(format, name, address.version));
    else if (name === 'ipAddress') pieces.push(fragment(format, name, address.canonical));
    else if (name === 'asn' || name === 'asnOrganization') pieces.push(network.fragment(format, name));
    else if (name === 'isProxy') pieces.push(fragment(format, name, record.proxy));
    else pieces.push(location.fragment(format, name, language));
  }
  return (format === 'json' ? `{${pieces.join(',')}}` : pieces.join('')) as Utf8;
}

/** The single lookup's XML document: `response` holding the elements {@link renderRecord} wrote. */
export function singleXml(elements: Utf8): Utf8 {
  return xmlDocument(`<response>${elements}</response>`) as Utf8;
}

/** A key that JSON and XML write as it is (ASCII, nothing to escape), as an address nearly always is. */
const PLAIN_KEY = /^[0-9A-Za-z.:]*$/;

/**
 * The bulk answer (spec 4.3): in JSON an object keyed by the addresses as sent, each value an item;
 * in XML `response` > `results` > one `item` per address with its `ip` attribute, holding the item.
 *
 * @param keys the addresses as sent (any text).
 * @param items per key, a record as {@link renderRecord} wrote it, or a problem object (JSON text, or
 *   the `problem` element), in UTF-8.
 */
export function bulkDocument(format: Format, keys: readonly string[], items: readonly Utf8[]): Utf8 {
  const pieces: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const item = items[i] as Utf8;
    if (format === 'json') pieces.push(`${PLAIN_KEY.test(key) ? `"${key}"` : utf8(jsonString(key))}:${item}`);
    else pieces.push(`${PLAIN_KEY.test(key) ? `<item ip="${key}">` : utf8(xmlElement('item', { ip: key }, '').slice(0, -'</item>'.length))}${item}</item>`);
  }
  return (format === 'json' ? `{${pieces.join(',')}}` : xmlDocument(`<response><results>${pieces.join('')}</results></response>`)) as Utf8;
}
