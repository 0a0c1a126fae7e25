/**
 * @module Lists of proxies given by path (`--proxy-list`): one address or CIDR network per line, `#`
 * comments and blank lines ignored. Each listed network gets the `proxy` flag (isProxy), whatever the
 * list holds: a list that says more (Tor exits, VPNs, a provider's ranges) has a reader of its own.
 * Held to the bounds of every published list (`flag-lists/parse.ts`, `flag-lists/lists.ts`): entries
 * read as theirs are, refused without being quoted, and a list with no network or over its ceiling refused.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { boundedList, coverageNote, PROXY_LIST_CEILING } from './flag-lists/lists.ts';
import { networksOfLines } from './flag-lists/parse.ts';
import { type FlagSource, type NetworkFlags, readSourceFile } from './source.ts';

/** What a plain list says of each network it lists. */
const PROXY: NetworkFlags = { flags: ['proxy'] };

/**
 * @throws SourceError when the file is missing or empty; naming the line of an entry that is not an
 *   address or a network, or is refused as a flag list's would be; or when the list holds no network or
 *   covers more than {@link PROXY_LIST_CEILING}.
 */
export function proxyList(path: string): FlagSource {
  const label = `--proxy-list ${path}`;
  const { content, file } = readSourceFile(path, label);
  // A comment may follow the entry on its line.
  const read = networksOfLines(content, label, (line) => line.replace(/#.*/, ''));
  const { networks, coverage } = boundedList(read.networks, PROXY_LIST_CEILING, label);
  return {
    info: {
      name: basename(path),
      provides: 'proxy',
      origin: 'file',
      version: `${networks.length} networks`,
      // A list states no build date of its own: the file's modification time is when it was fetched.
      builtAt: statSync(path).mtime.toISOString(),
      licence: 'as stated by the list’s publisher',
      attribution: `Proxies from ${basename(path)}`,
      files: [file],
    },
    sets: ['proxy'],
    notes: [coverageNote(basename(path), networks.length, coverage, PROXY_LIST_CEILING), ...read.dropped.map((entry) => `${label} ${entry}: dropped`)],
    forEach(visit) {
      for (const network of networks) visit(network, PROXY);
    },
  };
}
