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
export function attributes(values: Readonly<Record<string, string>>): Record<`@${string}`, string> {
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
