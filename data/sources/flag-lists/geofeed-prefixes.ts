/**
 * @module The networks of a feed in RFC 8805's geofeed format (`prefix,country,region,city,postal`, one
 * a line, `#` comments): Apple's iCloud Private Relay egress ranges and DigitalOcean's ranges. Only the
 * prefix is read: the flag is the list's, whatever the place a line gives.
 */
import { type FormatReader, networksOfLines } from './parse.ts';

/** Reads a geofeed's prefixes; a feed states no version or date of its own. */
export const geofeedPrefixes: FormatReader = (content, label) => networksOfLines(content, label, (line) => line.split(',', 1)[0] as string);
