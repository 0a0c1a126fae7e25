/**
 * @module Lists of proxies given by path (`--proxy-list`): one address or CIDR network per line, `#`
 * comments and blank lines ignored. Each listed network gets the `proxy` flag (isProxy), whatever the
 * list holds: a list that says more (Tor exits, VPNs, a provider's ranges) has a reader of its own.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseNetwork } from '../mmdb/network.ts';
import { type FlagSource, type NetworkFlags, readSourceFile, SourceError } from './source.ts';

/** What a plain list says of each network it lists. */
const PROXY: NetworkFlags = { flags: ['proxy'] };

/**
 * @throws SourceError naming the line of an entry that is not an address or a network.
 */
export function proxyList(path: string): FlagSource {
  const label = `--proxy-list ${path}`;
  const { content, file } = readSourceFile(path, label);
  const lines = content.toString('utf8').split(/\r?\n/);
  const networks = lines.flatMap((line, index) => {
    const entry = line.replace(/#.*/, '').trim();
    if (entry === '') return [];
    const cidr = entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`;
    try {
      return [parseNetwork(cidr)];
    } catch {
      throw new SourceError(`${label} line ${index + 1}: ${JSON.stringify(entry)} is not an IP address or CIDR network`);
    }
  });
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
    forEach(visit) {
      for (const network of networks) visit(network, PROXY);
    },
  };
}
