/**
 * @module The diff of the geolocation database between two builds: over every network of both (a walk
 * of each tree in address order), the addresses that either answers and those whose each field changed
 * (the gate's verdict), the networks that appeared and disappeared and those with the most changed
 * addresses; on the fixed sample (`sample.ts`), the same shares for a reader to compare between runs,
 * and the well-known networks that changed. Sizes: IPv4 in addresses, IPv6 in /64s.
 */

import { shardIndexOf } from '../../src/geo/shard-ranges.ts';
import { cidrText, type IpAddress } from '../../src/ip/address.ts';
import type { ComparedBuild } from './builds.ts';
import { type AnswerFacts, changedFields, DIFF_FIELDS, type DiffField, describeFacts, fieldsOf, NO_ANSWER } from './facts.ts';
import type { AddressSample } from './sample.ts';

/** What changed in one address family of the sample. */
interface FamilyChanges {
  readonly sampled: number;
  /** Sampled addresses that either build answers: the shares' denominator. */
  readonly answered: number;
  /** Of those, how many changed each field. */
  readonly changed: Readonly<Record<DiffField, number>>;
}

/**
 * What changed over every address of one family that either build answers, counted exactly from the
 * merged walk of both trees: what the gate decides on. Sizes in the family's unit (IPv4 addresses, IPv6
 * /64s; IPv6 sums are floating point, exact to some twelve significant digits).
 */
interface SpaceChanges {
  /** The addresses that either build answers: the shares' denominator. */
  readonly answered: number;
  /** Of those, how many changed each field. */
  readonly changed: Readonly<Record<DiffField, number>>;
}

/** Networks with data in one build and none of their addresses in the other, with their size. */
interface NetworkChanges {
  readonly appeared: number;
  readonly appearedSize: number;
  readonly disappeared: number;
  readonly disappearedSize: number;
}

/** A network of the new build and what changed in it: `size` its addresses (IPv6: /64s) whose answer changed. */
interface ChangedNetwork {
  readonly network: string;
  readonly size: number;
  readonly fields: readonly DiffField[];
  /** One changed answer in it, before and after (`describeFacts`). */
  readonly before: string;
  readonly after: string;
}

/** The database section of a diff report. */
export interface DatabaseDiff {
  readonly object: 'database';
  /** Over every address either build answers: the verdict's shares. */
  readonly exact: { readonly ipv4: SpaceChanges; readonly ipv6: SpaceChanges };
  /** On the fixed sample: shares to read and compare between runs, not the verdict. */
  readonly sample: { readonly ipv4: FamilyChanges; readonly ipv6: FamilyChanges };
  /** The well-known networks whose answer changed. */
  readonly wellKnown: readonly {
    readonly network: string;
    readonly name: string;
    readonly fields: readonly DiffField[];
    readonly before: string;
    readonly after: string;
  }[];
  readonly networks: { readonly ipv4: NetworkChanges; readonly ipv6: NetworkChanges };
  /** The networks with the most changed addresses, per family, largest first. */
  readonly largest: { readonly ipv4: readonly ChangedNetwork[]; readonly ipv6: readonly ChangedNetwork[] };
}

/** How many of the networks with the most changed addresses a diff lists, per family. */
const LARGEST_LISTED = 10;

/** The facts of an address (as words, IPv4 in `w3`) in a build, routed to the shard that answers it. */
function factsOf(build: ComparedBuild, version: 4 | 6, w0: number, w1: number, w2: number, w3: number): AnswerFacts {
  const shards = build.shards;
  const index =
    shards.length === 1
      ? 0
      : shardIndexOf(
          shards.map((shard) => shard.range),
          { version, canonical: '', w0, w1, w2, w3 },
        );
  const { facts } = shards[index] as ComparedBuild['shards'][number];
  const reader = facts.database.reader;
  return facts.at(version === 4 ? reader.offsetOfIpv4(w3) : reader.offsetOfIpv6(w0, w1, w2, w3));
}

/** Counts the changed fields of the sampled addresses that `pairOf` gives, one family. */
function familyChanges(count: number, pairOf: (index: number) => [AnswerFacts, AnswerFacts]): FamilyChanges {
  const masks = new Map<number, number>();
  let answered = 0;
  for (let i = 0; i < count; i++) {
    const [before, after] = pairOf(i);
    if (!before.answered && !after.answered) continue;
    answered++;
    const mask = changedFields(before, after);
    if (mask !== 0) masks.set(mask, (masks.get(mask) ?? 0) + 1);
  }
  const changed = Object.fromEntries(DIFF_FIELDS.map((field) => [field, 0])) as Record<DiffField, number>;
  for (const [mask, times] of masks) for (const field of fieldsOf(mask)) changed[field] += times;
  return { sampled: count, answered, changed };
}

/** A build's answer at each address of the sample, in the sample's order: looked up once, for every section of a report. */
export interface SampledAnswers {
  readonly ipv4: readonly AnswerFacts[];
  readonly ipv6: readonly AnswerFacts[];
}

/** The answers of `build` at the addresses of `sample`. */
export function sampledAnswers(build: ComparedBuild, sample: AddressSample): SampledAnswers {
  const { ipv4, ipv6 } = sample;
  return {
    ipv4: Array.from(ipv4, (address) => factsOf(build, 4, 0, 0, 0, address)),
    ipv6: Array.from({ length: ipv6.length / 4 }, (_, i) =>
      factsOf(build, 6, ipv6[i * 4] as number, ipv6[i * 4 + 1] as number, ipv6[i * 4 + 2] as number, ipv6[i * 4 + 3] as number),
    ),
  };
}

/** Compares the sample's answers. */
function sampleChanges(before: SampledAnswers, after: SampledAnswers): DatabaseDiff['sample'] {
  return {
    ipv4: familyChanges(before.ipv4.length, (i) => [before.ipv4[i] as AnswerFacts, after.ipv4[i] as AnswerFacts]),
    ipv6: familyChanges(before.ipv6.length, (i) => [before.ipv6[i] as AnswerFacts, after.ipv6[i] as AnswerFacts]),
  };
}

/** Every network of a build in address order: its first address as words, its prefix length (IPv6 space) and its facts. */
function walkNetworks(build: ComparedBuild, visit: (words: Uint32Array, prefixLength: number, shard: number, offset: number) => void): void {
  const words = new Uint32Array(4);
  for (const [shard, { facts }] of build.shards.entries()) {
    facts.database.reader.walk((bytes, prefixLength, offset) => {
      for (let w = 0; w < 4; w++)
        words[w] =
          ((bytes[w * 4] as number) * 2 ** 24 + ((bytes[w * 4 + 1] as number) << 16) + ((bytes[w * 4 + 2] as number) << 8) + (bytes[w * 4 + 3] as number)) >>>
          0;
      visit(words, prefixLength, shard, offset);
    });
  }
}

/** The networks of a build, kept in typed arrays (some 21 bytes a network) for the merge with the other's walk. */
class NetworkList {
  starts = new Uint32Array(4 << 16);
  lengths = new Uint8Array(1 << 16);
  shards = new Uint8Array(1 << 16);
  offsets = new Int32Array(1 << 16);
  count = 0;

  push(words: Uint32Array, prefixLength: number, shard: number, offset: number): void {
    if (this.count === this.lengths.length) this.grow();
    this.starts.set(words, this.count * 4);
    this.lengths[this.count] = prefixLength;
    this.shards[this.count] = shard;
    this.offsets[this.count] = offset;
    this.count++;
  }

  private grow(): void {
    const grown = <T extends Uint32Array | Uint8Array | Int32Array>(array: T, make: (n: number) => T): T => {
      const next = make(array.length * 2);
      next.set(array);
      return next;
    };
    this.starts = grown(this.starts, (n) => new Uint32Array(n));
    this.lengths = grown(this.lengths, (n) => new Uint8Array(n));
    this.shards = grown(this.shards, (n) => new Uint8Array(n));
    this.offsets = grown(this.offsets, (n) => new Int32Array(n));
  }
}

/** Word `w` of the last address of the network starting at `start` (words) with `prefixLength` bits. */
function lastWord(start: ArrayLike<number>, prefixLength: number, w: number): number {
  const kept = prefixLength - w * 32;
  const word = start[w] as number;
  return kept >= 32 ? word : kept <= 0 ? 0xffffffff : (word | (0xffffffff >>> kept)) >>> 0;
}

/** Negative, zero or positive as the 128-bit `a` (words of `aStart`, or their last address) is before, at or after `b`'s. */
function compare(a: ArrayLike<number>, aLength: number, aLast: boolean, b: ArrayLike<number>, bLength: number, bLast: boolean): number {
  for (let w = 0; w < 4; w++) {
    const x = aLast ? lastWord(a, aLength, w) : (a[w] as number);
    const y = bLast ? lastWord(b, bLength, w) : (b[w] as number);
    if (x !== y) return x - y;
  }
  return 0;
}

/** Whether a network lies in ::/96, where the tree keeps IPv4. */
function isIpv4(start: ArrayLike<number>, prefixLength: number): boolean {
  return prefixLength >= 96 && start[0] === 0 && start[1] === 0 && start[2] === 0;
}

/** A network's size in its family's unit: IPv4 addresses, or IPv6 /64s. */
function sizeOf(start: ArrayLike<number>, prefixLength: number): number {
  return isIpv4(start, prefixLength) ? 2 ** (128 - prefixLength) : 2 ** (64 - prefixLength);
}

function networkText(start: ArrayLike<number>, prefixLength: number): string {
  const [w0, w1, w2, w3] = [start[0], start[1], start[2], start[3]] as [number, number, number, number];
  const address: IpAddress = { version: isIpv4(start, prefixLength) ? 4 : 6, canonical: '', w0, w1, w2, w3 };
  return cidrText(address, address.version === 4 ? prefixLength - 96 : prefixLength);
}

/** Adds up, for one family, the answered size and the size whose each set of fields changed. */
class SpaceTally {
  private answered = 0;
  /** Changed size by mask of changed fields: far fewer masks than pieces. */
  private readonly masks = new Map<number, number>();

  /** A piece of `size` answered by either build, whose fields `mask` (`changedFields`) changed. */
  add(size: number, mask: number): void {
    this.answered += size;
    if (mask !== 0) this.masks.set(mask, (this.masks.get(mask) ?? 0) + size);
  }

  changes(): SpaceChanges {
    const changed = Object.fromEntries(DIFF_FIELDS.map((field) => [field, 0])) as Record<DiffField, number>;
    for (const [mask, size] of this.masks) for (const field of fieldsOf(mask)) changed[field] += size;
    return { answered: this.answered, changed };
  }
}

/**
 * Below this share of a network, what the other build leaves of it unanswered is the rounding of IPv6
 * sizes (a /128 inside a /48 is 2^-80 of it), not addresses. IPv4 sizes are whole numbers, exact.
 */
const ROUNDING = 2 ** -40;

/** Keeps the {@link LARGEST_LISTED} largest of what it is offered. */
class Largest {
  readonly kept: ChangedNetwork[] = [];

  offer(size: number, make: () => ChangedNetwork): void {
    if (this.kept.length === LARGEST_LISTED && size <= (this.kept.at(-1) as ChangedNetwork).size) return;
    this.kept.push(make());
    this.kept.sort((a, b) => b.size - a.size || (a.network < b.network ? -1 : 1));
    if (this.kept.length > LARGEST_LISTED) this.kept.pop();
  }
}

/**
 * Merges the walks of both builds: every overlap of a network of one with a network of the other (CIDR
 * networks nest or are apart), and what of each network the other build does not answer (an answer
 * appeared or disappeared there: every field it has changed). Each such piece is added, by its size,
 * to its family's answered space and to every field that changed in it.
 */
function networkChanges(before: ComparedBuild, after: ComparedBuild): Pick<DatabaseDiff, 'exact' | 'networks' | 'largest'> {
  const old = new NetworkList();
  walkNetworks(before, (words, prefixLength, shard, offset) => old.push(words, prefixLength, shard, offset));
  /** Of each network of the old build, the size that networks of the new one answer. */
  const covered = new Float64Array(old.count);
  const space = { ipv4: new SpaceTally(), ipv6: new SpaceTally() };
  const tallies = {
    ipv4: { appeared: 0, appearedSize: 0, disappeared: 0, disappearedSize: 0 },
    ipv6: { appeared: 0, appearedSize: 0, disappeared: 0, disappearedSize: 0 },
  };
  const largest = { ipv4: new Largest(), ipv6: new Largest() };
  const oldStart = (i: number) => old.starts.subarray(i * 4, i * 4 + 4);
  const oldFacts = (i: number) => (before.shards[old.shards[i] as number] as ComparedBuild['shards'][number]).facts.at(old.offsets[i] as number);
  const retire = (i: number) => {
    const start = oldStart(i);
    const length = old.lengths[i] as number;
    const family = isIpv4(start, length) ? 'ipv4' : 'ipv6';
    const size = sizeOf(start, length);
    const left = size - (covered[i] as number);
    if (left > size * ROUNDING) space[family].add(left, changedFields(oldFacts(i), NO_ANSWER));
    if (covered[i] === 0) {
      tallies[family].disappeared++;
      tallies[family].disappearedSize += size;
    }
  };
  let i = 0;
  walkNetworks(after, (start, length, shard, offset) => {
    const facts = (after.shards[shard] as ComparedBuild['shards'][number]).facts.at(offset);
    const family = isIpv4(start, length) ? 'ipv4' : 'ipv6';
    let answeredBefore = 0;
    let size = 0;
    let mask = 0;
    let example: [AnswerFacts, AnswerFacts] | undefined;
    /** A piece of this network of `pieceSize`, answered `was` by the old build. */
    const piece = (pieceSize: number, was: AnswerFacts) => {
      const changed = changedFields(was, facts);
      space[family].add(pieceSize, changed);
      if (changed === 0) return;
      size += pieceSize;
      mask |= changed;
      example ??= [was, facts];
    };
    while (i < old.count) {
      const otherStart = oldStart(i);
      const otherLength = old.lengths[i] as number;
      if (compare(otherStart, otherLength, true, start, length, false) < 0) {
        retire(i++);
        continue;
      }
      if (compare(otherStart, otherLength, false, start, length, true) > 0) break;
      // The overlap is the longer of the two networks.
      const overlap = otherLength > length ? sizeOf(otherStart, otherLength) : sizeOf(start, length);
      answeredBefore += overlap;
      covered[i] = (covered[i] as number) + overlap;
      piece(overlap, oldFacts(i));
      if (compare(otherStart, otherLength, true, start, length, true) > 0) break;
      retire(i++);
    }
    const whole = sizeOf(start, length);
    const fresh = whole - answeredBefore;
    if (fresh > whole * ROUNDING) piece(fresh, NO_ANSWER);
    if (answeredBefore === 0) {
      tallies[family].appeared++;
      tallies[family].appearedSize += whole;
    }
    if (example !== undefined) {
      const [was, is] = example;
      const network = networkText(start, length);
      largest[family].offer(size, () => ({ network, size, fields: fieldsOf(mask), before: describeFacts(was), after: describeFacts(is) }));
    }
  });
  while (i < old.count) retire(i++);
  return {
    exact: { ipv4: space.ipv4.changes(), ipv6: space.ipv6.changes() },
    networks: tallies,
    largest: { ipv4: largest.ipv4.kept, ipv6: largest.ipv6.kept },
  };
}

/** The database section of the diff of `before` and `after`, on `sample` (`sample.ts`), whose answers in each are `answers`. */
export function databaseDiff(
  before: ComparedBuild,
  after: ComparedBuild,
  sample: AddressSample,
  answers: { readonly before: SampledAnswers; readonly after: SampledAnswers },
): DatabaseDiff {
  const wellKnown = sample.wellKnown.flatMap(({ network, name, address }) => {
    const { version, w0, w1, w2, w3 } = address;
    const was = factsOf(before, version, w0, w1, w2, w3);
    const is = factsOf(after, version, w0, w1, w2, w3);
    const mask = changedFields(was, is);
    return mask === 0 ? [] : [{ network, name, fields: fieldsOf(mask), before: describeFacts(was), after: describeFacts(is) }];
  });
  return { object: 'database', sample: sampleChanges(answers.before, answers.after), wellKnown, ...networkChanges(before, after) };
}
