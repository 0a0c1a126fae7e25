/**
 * @module Text from outside the repository (a city name of a fetched geofeed, a publisher's answer in an
 * error) shown in Markdown that an operator reads before deciding: the refresh workflow's summary and
 * the diff gate's table. Nothing in it may become a link, an image, HTML, emphasis or a table column.
 */

/**
 * `text` as literal Markdown, fit for a paragraph, a list item or a table cell: each character that
 * Markdown or HTML would read (`\ ` * _ [ ] < > | # & ~`) escaped with a backslash, line ends as spaces.
 *
 * @example markdownText('x | **ok** [click](https://evil.example) <img src=x>')
 *   // 'x \\| \\*\\*ok\\*\\* \\[click\\](https://evil.example) \\<img src=x\\>'
 */
export function markdownText(text: string): string {
  return text.replace(/\r\n|[\r\n]/g, ' ').replace(/[\\`*_[\]<>|#&~]/g, (character) => `\\${character}`);
}
