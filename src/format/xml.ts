/**
 * @module XML rendering with fast-xml-parser: a root element, one child per field, one repeated
 * child per array element, booleans as `true`/`false`. Text that XML 1.0 cannot carry at all
 * (control characters, lone surrogates, U+FFFE/U+FFFF) becomes U+FFFD, so any data stays well-formed;
 * markup characters are escaped by the builder.
 */
import { XMLBuilder } from 'fast-xml-parser';

const builder = new XMLBuilder({
  format: false,
  suppressEmptyNode: false,
  suppressBooleanAttributes: false,
  processEntities: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the characters XML 1.0 forbids is the point.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A value that can be written as XML: scalars, arrays of them (repeated elements), nested objects.
 * In an object, a key that starts with `@` is an attribute of the element that holds it (see
 * {@link attributes}); field names of the API never start with `@`.
 */
export type XmlValue = string | number | boolean | readonly XmlValue[] | { readonly [key: string]: XmlValue };

function sanitize(value: XmlValue): XmlValue {
  if (typeof value === 'string') return value.replace(NOT_XML, '\uFFFD');
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return value.map(sanitize);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sanitize(v as XmlValue)]));
}

/**
 * Attributes for a nested element, to spread into its object.
 *
 * @example toXml('response', { item: [{ ...attributes({ ip: '8.8.8.8' }), cityName: '' }] })
 *   // '…<response><item ip="8.8.8.8"><cityName></cityName></item></response>'
 */
function attributes(values: Readonly<Record<string, string>>): Record<`@${string}`, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [`@${k}`, v]));
}

/**
 * Serialises `body` under a root element, with an XML declaration.
 *
 * @param rootAttributes attributes of the root element (e.g. `{ xmlns: 'urn:ietf:rfc:7807' }`).
 * @example toXml('response', { isProxy: false, timeZones: ['Europe/Paris'] })
 *   // '<?xml version="1.0" encoding="UTF-8"?><response><isProxy>false</isProxy><timeZones>Europe/Paris</timeZones></response>'
 */
export function toXml(root: string, body: { readonly [key: string]: XmlValue }, rootAttributes: Readonly<Record<string, string>> = {}): string {
  const xml = builder.build({ [root]: sanitize({ ...attributes(rootAttributes), ...body }) }) as string;
  return `<?xml version="1.0" encoding="UTF-8"?>${xml}`;
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/**
 * Text that {@link toXml} writes as it is: no markup character it escapes (`& < > ' "`), and none that
 * it replaces because XML 1.0 cannot carry it.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the characters XML cannot carry is the point.
const PLAIN_TEXT = /^[^&<>'"\u0000-\u001f\ud800-\udfff\ufffe\uffff]*$/;

/**
 * The elements of one field as {@link toXml} writes them inside a root, without the root: one element
 * for a scalar (an empty one for empty text), one per item of an array (none for an empty array).
 * Plain values are written directly, which costs a fraction of the builder; anything with a character
 * to escape or replace is cut out of {@link toXml}'s own rendering, so escaping stays the builder's.
 *
 * @example xmlFragment('timeZones', ['Europe/Paris']) // '<timeZones>Europe/Paris</timeZones>'
 */
export function xmlFragment(name: string, value: XmlValue): string {
  if (typeof value === 'string') return PLAIN_TEXT.test(value) ? `<${name}>${value}</${name}>` : viaBuilder(name, value);
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return `<${name}>${value}</${name}>`;
  if (Array.isArray(value)) {
    let text = '';
    for (const item of value as readonly XmlValue[]) text += xmlFragment(name, item);
    return text;
  }
  return viaBuilder(name, value);
}

/**
 * An element as {@link toXml} writes it within a document, without the declaration: `root` with
 * `rootAttributes`, then `body` (an XML fragment, written as it is), then its end tag.
 *
 * @example xmlElement('item', { ip: '8.8.8.8' }, '<cityName></cityName>') // '<item ip="8.8.8.8"><cityName></cityName></item>'
 */
export function xmlElement(root: string, rootAttributes: Readonly<Record<string, string>>, body: string): string {
  const end = `</${root}>`;
  return `${toXmlElement(root, {}, rootAttributes).slice(0, -end.length)}${body}${end}`;
}

/** {@link toXml} without the declaration: an element to nest in another document. */
export function toXmlElement(root: string, body: { readonly [key: string]: XmlValue }, rootAttributes: Readonly<Record<string, string>> = {}): string {
  return toXml(root, body, rootAttributes).slice(DECLARATION.length);
}

/** An XML document: the declaration, then `element`. */
export function xmlDocument(element: string): string {
  return `${DECLARATION}${element}`;
}

function viaBuilder(name: string, value: XmlValue): string {
  return toXmlElement('p', { [name]: value }).slice('<p>'.length, -'</p>'.length);
}
