/**
 * @module The one reader of the IP prefixes that inputs give (flag lists, proxy lists, geofeeds): an
 * address or CIDR prefix, IPv4 in four-part decimal or IPv6, into the search tree's space, where IPv4
 * sits in ::/96 and two more regions are answered as the IPv4 address they embed (::ffff:0:0/96 and
 * 2002::/16, `data/mmdb/search-tree.ts`). An IPv6 prefix that reaches into ::/96, or covers part of
 * such an alias, is refused whatever the input; one inside an alias is folded to its IPv4 prefix,
 * dropped or refused as the input's {@link PrefixPolicy} says. Messages name the text as the caller says.
 */
import { ipv4Text, ipv6Text, parseIp } from '../../src/ip/address.ts';
import { rangeWithArticle, SPECIAL_RANGES } from '../../src/ip/special-ranges.ts';
import { isIpv4Network, networkContains, networksOverlap, networkText, parseNetwork } from '../mmdb/network.ts';
import type { Network } from '../mmdb/search-tree.ts';

/** What an input may hold besides public prefixes, and what becomes of it. */
export interface PrefixPolicy {
  /** A prefix inside ::ffff:0:0/96: read as the IPv4 prefix it maps (`fold`), or dropped and said. */
  readonly mapped: 'fold' | 'drop';
  /** A prefix inside 2002::/16 (6to4): dropped and said, or refused (the IPv4 prefix it embeds is to be given instead). */
  readonly sixToFour: 'drop' | 'refuse';
  /** Bits set after the prefix length: cleared, or refused (naming the network meant). */
  readonly hostBits: 'clear' | 'refuse';
  /** Whether a prefix inside a special-purpose range (`src/ip/special-ranges.ts`), where the service answers nothing, is refused. */
  readonly refuseSpecial: boolean;
}

/** Published lists of networks (flag lists, `--proxy-list`): what the tree would answer as IPv4 is dropped, host bits cleared. */
export const LIST_ENTRIES: PrefixPolicy = { mapped: 'drop', sixToFour: 'drop', hostBits: 'clear', refuseSpecial: false };

/** Geofeed lines (RFC 8805): strict, as a correction names exactly the network it moves. */
export const GEOFEED_PREFIXES: PrefixPolicy = { mapped: 'fold', sixToFour: 'refuse', hostBits: 'refuse', refuseSpecial: true };

/**
 * A prefix as read: its network (IPv4 at ::a.b.c.d/(96+n)), canonical text (`81.2.69.0/24`,
 * `2001:db8::/32`, RFC 5952) and family; or why it is dropped; or why it is refused.
 */
export type PrefixRead =
  | { readonly network: Network; readonly text: string; readonly family: 4 | 6 }
  | { readonly dropped: string }
  | { readonly refused: string };

/** Where the tree keeps IPv4: no prefix written in IPv6 may reach into it. */
const IPV4_SPACE = parseNetwork('::/96');
const MAPPED = { network: parseNetwork('::ffff:0:0/96'), name: '::ffff:0:0/96 (IPv4-mapped)' };
const SIX_TO_FOUR = { network: parseNetwork('2002::/16'), name: '2002::/16 (6to4)' };
const EMBEDS = 'answered as the IPv4 address it embeds';

/** The special-purpose ranges of each family, as networks of the tree's space. */
const SPECIAL = {
  4: SPECIAL_RANGES.filter((range) => !range.cidr.includes(':')).map((range) => ({ range, network: parseNetwork(range.cidr) })),
  6: SPECIAL_RANGES.filter((range) => range.cidr.includes(':')).map((range) => ({ range, network: parseNetwork(range.cidr) })),
};

/** A prefix length: digits without a leading zero. */
const LENGTH = /^(0|[1-9]\d{0,2})$/;

/** The 16 bytes of four 32-bit words, the first bits of `length` kept. */
function maskedBytes(words: readonly number[], length: number): Uint8Array {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  for (let k = 0; k < 4; k++) {
    const kept = Math.min(32, Math.max(0, length - 32 * k));
    view.setUint32(4 * k, kept === 0 ? 0 : ((words[k] as number) & (0xffffffff << (32 - kept))) >>> 0);
  }
  return bytes;
}

/**
 * Reads one prefix, or single address (a /32 or /128).
 *
 * @param name how a refusal names the text before its network is known: `the entry`, `the prefix`
 *   (fetched text is never repeated), or the text quoted for a file of the operator's.
 */
export function readPrefix(text: string, policy: PrefixPolicy, name: string): PrefixRead {
  const slash = text.indexOf('/');
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const family = addressText.includes(':') ? 6 : 4;
  const address = parseIp(addressText);
  if (address === undefined) return { refused: `${name} is not an IP address or CIDR network` };
  const bits = family === 4 ? 32 : 128;
  const lengthText = slash < 0 ? String(bits) : text.slice(slash + 1);
  const length = LENGTH.test(lengthText) ? Number(lengthText) : Number.NaN;
  if (!(length <= bits)) return { refused: `${name} has no valid prefix length (0 to ${bits})` };
  // parseIp reads ::ffff:a.b.c.d as IPv4 a.b.c.d: its IPv6 bits are put back, the alias is handled below.
  const words = family === 4 ? [0, 0, 0, address.w3] : address.version === 4 ? [0, 0, 0xffff, address.w3] : [address.w0, address.w1, address.w2, address.w3];
  const treeLength = family === 4 ? 96 + length : length;
  const bytes = maskedBytes(words, treeLength);
  const view = new DataView(bytes.buffer);
  const masked = [0, 1, 2, 3].map((k) => view.getUint32(4 * k));
  const canonical =
    family === 4
      ? `${ipv4Text(masked[3] as number)}/${length}`
      : `${ipv6Text({ w0: masked[0] as number, w1: masked[1] as number, w2: masked[2] as number, w3: masked[3] as number })}/${length}`;
  if (policy.hostBits === 'refuse' && masked.some((word, k) => word !== words[k])) return { refused: `${name} has host bits set: the network is ${canonical}` };
  const network: Network = { bytes, prefixLength: treeLength };
  let shown = canonical;
  if (family === 6) {
    if (networksOverlap(network, IPV4_SPACE)) return { refused: `${canonical} reaches into ::/96, where the database keeps IPv4: give IPv4 prefixes as IPv4` };
    for (const alias of [MAPPED, SIX_TO_FOUR]) {
      if (!networksOverlap(network, alias.network)) continue;
      if (!networkContains(alias.network, network)) return { refused: `${canonical} covers part of ${alias.name}, ${EMBEDS}` };
      if (alias === SIX_TO_FOUR && policy.sixToFour === 'refuse')
        return { refused: `${canonical} is in 6to4 2002::/16, whose addresses are answered as the IPv4 address they embed: give that IPv4 prefix` };
      if (alias === SIX_TO_FOUR || policy.mapped === 'drop') return { dropped: `${canonical} is in ${alias.name}, ${EMBEDS}` };
      // ::ffff:a.b.c.d/(96+n) is a.b.c.d/n, which the tree keeps at ::a.b.c.d/(96+n).
      bytes[10] = 0;
      bytes[11] = 0;
      shown = networkText(network);
    }
  }
  const ipv4 = isIpv4Network(network);
  if (policy.refuseSpecial) {
    const special = SPECIAL[ipv4 ? 4 : 6].find((candidate) => networkContains(candidate.network, network));
    if (special !== undefined) {
      const { cidr, rfc } = special.range;
      return { refused: `${shown} is in ${cidr}, ${rangeWithArticle(special.range)} (${rfc}): the service answers no address there` };
    }
  }
  return { network, text: shown, family: ipv4 ? 4 : 6 };
}
