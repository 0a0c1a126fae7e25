/**
 * @module Reads the Worker's HTML pages in workerd with the runtime's own HTMLRewriter (a streaming
 * HTML parser that shares no code with the pages): the text a reader sees, the text of the elements a
 * selector matches (together or each), and their attributes.
 */

/** Character references the pages' text can hold, decoded as a browser would. */
function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (_, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(Number(lower.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }[lower] ?? '';
  });
}

/** The text inside the elements `selector` matches, decoded, joined in document order. */
export async function textIn(html: string, selector = 'body'): Promise<string> {
  let text = '';
  let skipping = 0;
  await new HTMLRewriter()
    .on('script, style', {
      element(element) {
        skipping++;
        element.onEndTag(() => {
          skipping--;
        });
      },
    })
    .on(selector, {
      text(chunk) {
        if (skipping === 0) text += chunk.text;
      },
    })
    .transform(new Response(html))
    .text();
  return decode(text);
}

/** The text inside each element `selector` matches, decoded, its runs of white space made one space, in document order. */
export async function textsOf(html: string, selector: string): Promise<string[]> {
  const texts: string[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element() {
        texts.push('');
      },
      text(chunk) {
        texts[texts.length - 1] += chunk.text;
      },
    })
    .transform(new Response(html))
    .text();
  return texts.map((text) => decode(text).replace(/\s+/g, ' ').trim());
}

/** The text a reader sees: the body's text with its runs of white space made one space. */
export async function visibleText(html: string): Promise<string> {
  return (await textIn(html)).replace(/\s+/g, ' ');
}

/** The attributes of every element `selector` matches, decoded, in document order. */
export async function attributesOf(html: string, selector: string): Promise<Record<string, string>[]> {
  const found: Record<string, string>[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element(element) {
        found.push(Object.fromEntries([...element.attributes].map(([name, value]) => [name, decode(value ?? '')])));
      },
    })
    .transform(new Response(html))
    .text();
  return found;
}
