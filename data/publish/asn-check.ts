/**
 * @module A build's ASN object read from its folder and checked whole before it is published, as a Worker
 * reads it in pieces: the index against its SHA-256, every block against the digest the index gives
 * it, every page record decoded (`data:publish`, and `--check`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsnLayoutError, type AsnPage, pagesInBlock, parseAsnIndex } from '../../src/geo/asn-layout.ts';
import type { AsnObjectInfo } from '../asn/object.ts';
import type { PublicationAsn } from './asn-object.ts';
import { PublishError } from './record.ts';

/**
 * The ASN object that a build's manifest names, read from `dir` and checked against the manifest.
 *
 * @returns undefined for a manifest written before builds had one.
 * @throws PublishError when the file is missing or not the one the manifest describes.
 */
export function readAsnObject(dir: string, info: AsnObjectInfo | undefined): (PublicationAsn<Buffer> & { readonly file: string }) | undefined {
  if (info === undefined) return undefined;
  const at = join(dir, info.file);
  if (!existsSync(at)) throw new PublishError(`${at}, which its manifest names, is missing; run npm run data:build`);
  const body = readFileSync(at);
  const sha256 = createHash('sha256').update(body).digest('hex');
  if (sha256 !== info.sha256 || body.byteLength !== info.bytes) {
    throw new PublishError(`${at} is not the file its manifest describes (SHA-256 ${sha256}, manifest ${info.sha256})`);
  }
  const { bytes, indexBytes, indexSha256, blockBytes, blocks } = info;
  return { bytes, sha256, indexBytes, indexSha256, blockBytes, blocks, body, file: at };
}

/**
 * Reads the ASN object as a Worker would, every piece: the index against `indexSha256`, each block
 * against the index's digest of it, each page record decoded.
 *
 * @param visit receives each page record decoded, in order (what `data:diff` compares).
 * @returns the ASNs and page records read.
 * @throws PublishError naming the piece at fault.
 */
export function verifyAsnObject(object: PublicationAsn<Uint8Array>, label: string, visit?: (page: AsnPage) => void): { asns: number; pages: number } {
  const { body, indexBytes, blockBytes, blocks } = object;
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  if (body.byteLength !== indexBytes + blocks * blockBytes) throw new PublishError(`${label} is ${body.byteLength} bytes, not its index and ${blocks} blocks`);
  const indexPart = body.subarray(0, indexBytes);
  if (sha256(indexPart) !== object.indexSha256) throw new PublishError(`${label}: its index is not the one its manifest describes`);
  const seen = new Set<number>();
  let pages = 0;
  try {
    const index = parseAsnIndex(indexPart, object);
    for (let k = 0; k < blocks; k++) {
      const block = body.subarray(indexBytes + k * blockBytes, indexBytes + (k + 1) * blockBytes);
      if (sha256(block) !== Buffer.from(index.digests.subarray(k * 32, (k + 1) * 32)).toString('hex')) {
        throw new PublishError(`${label}: block ${k} is not the one its index describes`);
      }
      for (const page of pagesInBlock(block)) {
        seen.add(page.asn);
        pages++;
        visit?.(page);
      }
    }
  } catch (error) {
    if (error instanceof AsnLayoutError) throw new PublishError(`${label} is damaged: ${error.message}`);
    throw error;
  }
  return { asns: seen.size, pages };
}
