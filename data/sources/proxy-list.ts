/**
 * @module Lists of anonymising networks given by path (`--proxy-list`): one address or CIDR network
 * per line, `#` comments and blank lines ignored, such as a Tor exit list.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseNetwork } from '../mmdb/network.ts';
import { type ProxySource, readSourceFile, SourceError } from './source.ts';

/**
 * @throws SourceError naming the line of an entry that is not an address or a network.
 */
export function proxyList(path: string): ProxySource {
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
      attribution: `Anonymising networks from ${basename(path)}`,
      files: [file],
    },
    forEach(visit) {
      for (const network of networks) visit(network);
    },
  };
}
