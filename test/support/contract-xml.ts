/**
 * @module Reads an XML body into the JSON value that its OpenAPI schema describes, by the rules of
 * OpenAPI's XML Object (3.1, section 4.8.26): a property is a child element of its name (or `xml.name`),
 * an `xml.attribute` property an attribute, an array (unwrapped) one repeated element per item, and the
 * root's name and `xml.namespace` as the schema says. Scalars take the type the schema gives them, so
 * that a JSON Schema validator can then judge the value. Parsed by @xmldom/xmldom, independent of the
 * builder the Worker writes with.
 */
import { DOMParser, type Element, type Node } from '@xmldom/xmldom';

/** A dereferenced OpenAPI 3.1 schema object, as much of it as the XML rules read. */
export interface Schema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly items?: Schema;
  readonly allOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly xml?: { readonly name?: string; readonly namespace?: string; readonly attribute?: boolean; readonly wrapped?: boolean };
}

/** The value read, or why the XML cannot be read as the schema describes it. */
type XmlReading = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

/**
 * The JSON value of `text` under `schema`.
 *
 * @example fromXml('<response><isProxy>false</isProxy></response>', ipInfoSchema) // { ok: true, value: { isProxy: false, … } }
 */
export function fromXml(text: string, schema: Schema): XmlReading {
  const errors: string[] = [];
  const document = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') errors.push(message);
    },
  }).parseFromString(text, 'application/xml');
  const root = document.documentElement;
  if (errors.length > 0 || !root) return { ok: false, reason: `not well-formed: ${errors.join('; ')}` };
  const xml = rootXml(schema);
  if (xml?.name !== undefined && nameOf(root) !== xml.name) return { ok: false, reason: `the root is <${nameOf(root)}>, not <${xml.name}>` };
  if (xml?.namespace !== undefined && root.namespaceURI !== xml.namespace) {
    return { ok: false, reason: `the root's namespace is ${JSON.stringify(root.namespaceURI)}, not ${JSON.stringify(xml.namespace)}` };
  }
  return { ok: true, value: read(root, schema) };
}

/** The `xml` object of the root: the schema's, or the one all its `anyOf`/`oneOf` branches share. */
function rootXml(schema: Schema): Schema['xml'] {
  const own = flatten(schema).xml;
  const branches = schema.anyOf ?? schema.oneOf;
  if (own || !branches) return own;
  const names = new Set(branches.map((branch) => JSON.stringify(rootXml(branch) ?? null)));
  return names.size === 1 ? (rootXml(branches[0] as Schema) ?? undefined) : undefined;
}

/** `allOf` merged into one schema: the properties of all, the last `xml` and `type` given. */
function flatten(schema: Schema): Schema {
  if (!schema.allOf) return schema;
  const parts = schema.allOf.map(flatten);
  const properties = Object.assign({}, ...parts.map((part) => part.properties ?? {}), schema.properties ?? {}) as Record<string, Schema>;
  const xml = [schema, ...parts].reverse().find((part) => part.xml)?.xml;
  const type = [schema, ...parts].find((part) => part.type)?.type;
  return {
    ...(type === undefined ? {} : { type }),
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    ...(xml === undefined ? {} : { xml }),
  };
}

function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  return type?.find((one) => one !== 'null');
}

const children = (element: Element) => Array.from(element.childNodes as ArrayLike<Node>).filter((node): node is Element => node.nodeType === 1);

/** An element's name without its prefix. */
const nameOf = (element: Element): string => element.localName ?? element.tagName;

/** How many child elements and attributes of `element` the object schema has no property for. */
function strangers(element: Element, schema: Schema): number {
  const properties = flatten(schema).properties ?? {};
  const names = new Set<string>();
  for (const [name, property] of Object.entries(properties)) {
    const own = flatten(property);
    names.add(own.type === 'array' || own.items ? (flatten(own.items ?? {}).xml?.name ?? name) : (own.xml?.name ?? name));
  }
  return children(element).filter((child) => !names.has(nameOf(child))).length;
}

function read(element: Element, given: Schema): unknown {
  const branches = given.anyOf ?? given.oneOf;
  if (branches) {
    // The branch that knows the most of the element's children: a record item against a problem item.
    const ranked = [...branches].sort((a, b) => strangers(element, a) - strangers(element, b));
    return read(element, ranked[0] ?? {});
  }
  const schema = flatten(given);
  const type = typeOf(schema);
  const text = element.textContent ?? '';
  if (type === 'integer' || type === 'number') return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text) ? Number(text) : text;
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (type === 'string') return text;
  if (type === 'object' || schema.properties) return readObject(element, schema);
  return untyped(element);
}

function readObject(element: Element, schema: Schema): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  const claimed = new Set<string>();
  const elements = children(element);
  for (const [name, given] of Object.entries(schema.properties ?? {})) {
    const property = flatten(given);
    if (property.xml?.attribute) {
      const attribute = element.getAttribute(property.xml.name ?? name);
      if (attribute !== null) value[name] = read(textElement(attribute), property);
      continue;
    }
    if (typeOf(property) === 'array') {
      const items = property.items ?? {};
      const itemName = flatten(items).xml?.name ?? name;
      claimed.add(itemName);
      // An empty array writes no element, so every array the schema has is there, empty or not.
      value[name] = elements.filter((child) => nameOf(child) === itemName).map((child) => read(child, items));
      continue;
    }
    const elementName = property.xml?.name ?? name;
    claimed.add(elementName);
    const found = elements.filter((child) => nameOf(child) === elementName);
    if (found.length === 1 && found[0]) value[name] = read(found[0], given);
    else if (found.length > 1) value[name] = found.map((child) => read(child, given));
  }
  // Children the schema does not name are kept, so that the validator judges them.
  for (const child of elements) {
    if (claimed.has(nameOf(child))) continue;
    const known = value[nameOf(child)];
    const item = untyped(child);
    value[nameOf(child)] = known === undefined ? item : Array.isArray(known) ? [...known, item] : [known, item];
  }
  return value;
}

/** An element read without a schema: text, or an object of its children (repeated ones as arrays). */
function untyped(element: Element): unknown {
  const elements = children(element);
  if (elements.length === 0) return element.textContent ?? '';
  const value: Record<string, unknown> = {};
  for (const child of elements) {
    const known = value[nameOf(child)];
    const item = untyped(child);
    value[nameOf(child)] = known === undefined ? item : Array.isArray(known) ? [...known, item] : [known, item];
  }
  return value;
}

/** An element holding `text`, to read an attribute's value as an element's. */
function textElement(text: string): Element {
  const document = new DOMParser().parseFromString('<v/>', 'application/xml');
  const element = document.documentElement as Element;
  element.appendChild(document.createTextNode(text));
  return element;
}
