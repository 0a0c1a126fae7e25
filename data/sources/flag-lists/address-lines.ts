/**
 * @module Plain lists of networks, one address or CIDR network per line, `#` comments and blank lines
 * skipped: the Tor Project's bulk exit list, X4BNet's lists, Cloudflare's `ips-v4` and `ips-v6`.
 */
import { type FormatReader, networksOfLines } from './parse.ts';

/** Reads a plain list; it states no version or date of its own. */
export const addressLines: FormatReader = (content, label) => networksOfLines(content, label, (line) => line);
