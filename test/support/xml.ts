/** @module Parses XML answers with @xmldom/xmldom, a parser independent of the one that builds them. */
import { DOMParser, type Element, type Node } from '@xmldom/xmldom';

/**
 * Parses `text`, failing on any well-formedness error, and returns the document element.
 *
 * @throws Error naming the parser's complaint.
 */
export function parseXml(text: string): Element {
  const errors: string[] = [];
  const document = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') errors.push(message);
    },
  }).parseFromString(text, 'application/xml');
  if (errors.length > 0) throw new Error(`not well-formed XML: ${errors.join('; ')}`);
  const root = document.documentElement;
  if (!root) throw new Error('XML without a document element');
  return root;
}

/** The text of each child element named `name`, in order. */
export function childTexts(element: Element, name: string): string[] {
  return Array.from(element.childNodes as ArrayLike<Node>)
    .filter((node): node is Element => node.nodeType === 1 && (node as Element).tagName === name)
    .map((node) => node.textContent ?? '');
}

/** The names of the element's children, in document order. */
export function childNames(element: Element): string[] {
  return Array.from(element.childNodes as ArrayLike<Node>)
    .filter((node): node is Element => node.nodeType === 1)
    .map((node) => node.tagName);
}
