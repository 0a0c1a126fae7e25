/**
 * @module A general MaxMind DB writer for tests: networks in, file out, through the build's own search
 * tree, data section and assembly (`data/mmdb/`). Tests use it to make small databases of chosen records.
 */
import { DataSectionWriter, type MmdbValue } from '../../data/mmdb/data-section.ts';
import { type Network, SearchTree } from '../../data/mmdb/search-tree.ts';
import { assembleMmdb, type MmdbMetadataInput } from '../../data/mmdb/writer.ts';

/**
 * Networks in, file out. Later insertions replace earlier ones where
 * they overlap, so insert broad networks before the more specific ones they contain.
 *
 * @example
 *   const writer = new MmdbWriter({ ipVersion: 6, databaseType: 'Test' });
 *   writer.insert(parseNetwork('1.2.3.0/24'), { country: 'AU' });
 *   const file = writer.build();
 */
export class MmdbWriter {
  private readonly tree = new SearchTree();
  private readonly data = new DataSectionWriter();

  constructor(private readonly metadata: MmdbMetadataInput) {}

  /** Stores `value` for `network` (IPv6 space; IPv4 at ::a.b.c.d). */
  insert(network: Network, value: MmdbValue): void {
    this.tree.insert(network, this.data.write(value));
  }

  /** The finished file. */
  build(): Uint8Array {
    const final = this.tree.finalize({ aliasIpv4: this.metadata.ipVersion === 6, rootDepth: this.metadata.ipVersion === 4 ? 96 : 0 });
    return assembleMmdb(final, this.data, this.metadata);
  }
}
