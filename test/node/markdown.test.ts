/**
 * @module Text from outside shown in Markdown (`data/markdown.ts`): a hostile city name or message, read
 * back by a CommonMark parser (mdast-util-from-markdown), is one paragraph of literal text, with no link,
 * image, HTML, emphasis or code in it, and no unescaped `|` that would open another table column.
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { describe, expect, it } from 'vitest';
import { markdownText } from '../../data/markdown.ts';

const HOSTILE =
  'x | **Within every threshold.** [click](https://evil.example) <img src=x> ![i](https://evil.example/i.png) `code` _em_ # h ~~s~~ &lt;b&gt;\nnext line';

describe('markdownText', () => {
  it('keeps hostile text one paragraph of literal text, as written', () => {
    const tree = fromMarkdown(markdownText(HOSTILE));
    expect(tree.children.map((node) => node.type)).toEqual(['paragraph']);
    const paragraph = tree.children[0] as { children: { type: string; value?: string }[] };
    expect(paragraph.children.map((node) => node.type)).toEqual(['text']);
    expect(paragraph.children[0]?.value).toBe(HOSTILE.replace('\n', ' '));
  });

  it('leaves no `|` that a table would read as a column', () => {
    expect(markdownText(HOSTILE).replace(/\\\\|\\\|/g, '')).not.toContain('|');
  });
});
