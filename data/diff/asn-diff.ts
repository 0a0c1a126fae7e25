/**
 * @module The diff of the ASN object (`ipgeo-<version>.asn`) between two builds: on the fixed address
 * sample, the share whose ASN (by the objects' prefixes) changed; over every ASN, those that appeared,
 * disappeared or were renamed, and the addresses each gained and lost; the totals; on a fixed sample of
 * ASNs (the largest among them) whose prefixes did not change, the share of their addresses placed in
 * another country. And whether the new build's object agrees with its own database on the address
 * sample (else the build is broken).
 */
import type { AsnCountry } from '../../src/geo/asn-layout.ts';
import { ipv4Text, ipv6Text } from '../../src/ip/address.ts';
import type { AsnHolding, AsnTotals, AsnView } from './asn-view.ts';
import type { ComparedBuild } from './builds.ts';
import { type SampledAnswers, sampledAnswers } from './database-diff.ts';
import { type AddressSample, addressSample } from './sample.ts';

/** Of a family of the address sample: addresses sampled, those an ASN holds in either build, those whose ASN changed. */
interface SampledAsns {
  readonly sampled: number;
  readonly answered: number;
  readonly changed: number;
}

/** How an ASN's holdings of one family changed: IPv4 addresses, or IPv6 /64s. */
export interface HoldingChange {
  readonly asn: number;
  /** Its organisation in the new build, or the old one's when it disappeared. */
  readonly organization: string;
  readonly before: number;
  readonly after: number;
  /** Held now and not before; held before and not now. */
  readonly gained: number;
  readonly lost: number;
}

/** The new build's ASN object against its own database, on the address sample. */
export interface AsnConsistency {
  /** Sampled addresses that the database gives an ASN or a prefix of the object holds. */
  readonly checked: number;
  /** Of those, the ones where the database's ASN holds no prefix of the object containing the address (or it gives none where one does). */
  readonly mismatches: number;
  /** The first {@link EXAMPLES} mismatches: the address, the database's ASN and the ASN of the object's longest prefix holding it (0: none). */
  readonly examples: readonly { readonly address: string; readonly database: number; readonly object: number }[];
}

/** What changed between two ASN objects. */
interface AsnChanges {
  readonly sample: { readonly ipv4: SampledAsns; readonly ipv6: SampledAsns };
  readonly asns: {
    readonly appeared: number;
    readonly disappeared: number;
    /** ASNs in both builds, and those whose organisation changed, with the first {@link EXAMPLES}. */
    readonly inBoth: number;
    readonly renamed: number;
    readonly renamedExamples: readonly { readonly asn: number; readonly before: string; readonly after: string }[];
  };
  /** The ASN that gained the most, per family (null when none gained). */
  readonly largestGain: { readonly ipv4: HoldingChange | null; readonly ipv6: HoldingChange | null };
  /** The {@link LARGEST_LISTED} ASNs whose holdings changed most (gained and lost), per family, most first. */
  readonly largest: { readonly ipv4: readonly HoldingChange[]; readonly ipv6: readonly HoldingChange[] };
  /**
   * Of the sampled ASNs whose prefixes are the same in both builds (so that only the location data moves
   * them), their addresses and those placed in another country, per family; and the sampled ASNs left
   * out because their prefixes changed (what the other measures count).
   */
  readonly countries: {
    readonly asns: number;
    readonly rerouted: number;
    readonly ipv4: { readonly addresses: number; readonly moved: number };
    readonly ipv6: { readonly addresses: number; readonly moved: number };
  };
}

/** The ASN section of a diff report. */
export interface AsnDiff {
  readonly object: 'asn';
  /** Each build's totals; null for a build without an ASN object (a version published before builds had one). */
  readonly before: AsnTotals | null;
  readonly after: AsnTotals | null;
  /** Null when the new build has no ASN object. */
  readonly consistency: AsnConsistency | null;
  /** Null unless both builds have one. */
  readonly changes: AsnChanges | null;
}

const EXAMPLES = 5;
const LARGEST_LISTED = 10;

/** The fixed ASN sample: one ASN number in {@link SAMPLED_ONE_IN} (by a fixed hash of the number, so the same ASNs on every run)... */
const SAMPLED_ONE_IN = 8;
/** ...and the {@link LARGEST_SAMPLED} largest of each family in each build. */
const LARGEST_SAMPLED = 25;

/** Whether the fixed hash picks `asn`: the top three bits of a multiplicative (Fibonacci) hash, one in eight. */
function hashedIn(asn: number): boolean {
  return Math.imul(asn, 0x9e3779b1) >>> 0 < 2 ** 32 / SAMPLED_ONE_IN;
}

/** Calls `visit` with each sampled address as words, its family and its index in the family. */
function forEachSampled(sample: AddressSample, visit: (family: 'ipv4' | 'ipv6', index: number, w0: number, w1: number, w2: number, w3: number) => void): void {
  for (const [i, address] of sample.ipv4.entries()) visit('ipv4', i, 0, 0, 0, address);
  const { ipv6 } = sample;
  for (let i = 0; i < ipv6.length; i += 4) visit('ipv6', i / 4, ipv6[i] as number, ipv6[i + 1] as number, ipv6[i + 2] as number, ipv6[i + 3] as number);
}

/** The ASN of the longest prefix of an object holding each sampled address (0: none), per family in the sample's order. */
interface SampledHolders {
  readonly ipv4: Uint32Array;
  readonly ipv6: Uint32Array;
}

function holdersOf(view: AsnView, sample: AddressSample): SampledHolders {
  const holders = { ipv4: new Uint32Array(sample.ipv4.length), ipv6: new Uint32Array(sample.ipv6.length / 4) };
  forEachSampled(sample, (family, index, w0, w1, w2, w3) => {
    holders[family][index] = view.table.holderOf(w0, w1, w2, w3);
  });
  return holders;
}

/**
 * The new build's object `view` against its database, whose answers at the sample's addresses are
 * `answers`. The sample holds no address of the tree's IPv4 aliases (2002::/16, ::ffff:0:0/96), where the
 * database answers the embedded IPv4 address's record while the object may hold the alias itself.
 */
function asnConsistency(view: AsnView, sample: AddressSample, holders: SampledHolders, answers: SampledAnswers): AsnConsistency {
  let checked = 0;
  let mismatches = 0;
  const examples: { address: string; database: number; object: number }[] = [];
  forEachSampled(sample, (family, index, w0, w1, w2, w3) => {
    const database = (answers[family][index] as SampledAnswers['ipv4'][number]).asn;
    const object = holders[family][index] as number;
    if (database === 0 && object === 0) return;
    checked++;
    if (database !== 0 && (database === object || view.table.holds(database, w0, w1, w2, w3))) return;
    mismatches++;
    if (examples.length < EXAMPLES) examples.push({ address: family === 'ipv4' ? ipv4Text(w3) : ipv6Text({ w0, w1, w2, w3 }), database, object });
  });
  return { checked, mismatches, examples };
}

/** Addresses (or /64s) in both of two lists of inclusive ranges in address order (numbers or bigints: no `Math.min`). */
function overlap<T extends number | bigint>(a: readonly T[], b: readonly T[], size: (first: T, last: T) => number): number {
  let total = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const bStartsLater = (b[j] as T) > (a[i] as T);
    const first = (bStartsLater ? b[j] : a[i]) as T;
    const aEndsFirst = (a[i + 1] as T) < (b[j + 1] as T);
    const last = (aEndsFirst ? a[i + 1] : b[j + 1]) as T;
    if (first <= last) total += size(first, last);
    if (aEndsFirst) i += 2;
    else j += 2;
  }
  return total;
}

const ipv4Size = (first: number, last: number) => last - first + 1;
const ipv6Size = (first: bigint, last: bigint) => Number(last - first + 1n);

/** Addresses (or /64s) in a list of inclusive ranges. */
function sizeOf<T extends number | bigint>(ranges: readonly T[], size: (first: T, last: T) => number): number {
  let total = 0;
  for (let i = 0; i < ranges.length; i += 2) total += size(ranges[i] as T, ranges[i + 1] as T);
  return total;
}

/** How the holdings of `asn` changed in a family. */
function holdingChange(asn: number, was: AsnHolding | undefined, is: AsnHolding | undefined, family: 'ipv4' | 'ipv6'): HoldingChange {
  const organization = (is ?? was)?.organization ?? '';
  const held = (holding: AsnHolding | undefined) =>
    holding === undefined ? 0 : family === 'ipv4' ? sizeOf(holding.ipv4, ipv4Size) : sizeOf(holding.ipv6, ipv6Size);
  const before = held(was);
  const after = held(is);
  const both = was === undefined || is === undefined ? 0 : family === 'ipv4' ? overlap(was.ipv4, is.ipv4, ipv4Size) : overlap(was.ipv6, is.ipv6, ipv6Size);
  return { asn, organization, before, after, gained: after - both, lost: before - both };
}

/** The share of an ASN's addresses of a family that the new build places in another country: half the sum of the changes of each country's share, times its addresses before. */
function moved(was: readonly AsnCountry[], is: readonly AsnCountry[], family: 'ipv4' | 'ipv6'): { addresses: number; moved: number } {
  const total = (countries: readonly AsnCountry[]) => countries.reduce((sum, country) => sum + country[family], 0);
  const before = total(was);
  const after = total(is);
  if (before === 0 || after === 0) return { addresses: 0, moved: 0 };
  const shares = new Map<string | null, number>();
  for (const country of was) shares.set(country.code, (shares.get(country.code) ?? 0) + country[family] / before);
  for (const country of is) shares.set(country.code, (shares.get(country.code) ?? 0) - country[family] / after);
  let distance = 0;
  for (const share of shares.values()) distance += Math.abs(share);
  return { addresses: before, moved: (distance / 2) * before };
}

/** The fixed ASN sample among the ASNs of both builds: the hashed ones and each build's largest of each family. */
function asnSample(before: AsnView, after: AsnView): number[] {
  const largest = (view: AsnView, family: 'ipv4' | 'ipv6') =>
    [...view.asns]
      .sort(([a, x], [b, y]) => y.addresses[family] - x.addresses[family] || a - b)
      .slice(0, LARGEST_SAMPLED)
      .map(([asn]) => asn);
  const sampled = new Set([...before.asns.keys()].filter(hashedIn));
  for (const view of [before, after]) for (const family of ['ipv4', 'ipv6'] as const) for (const asn of largest(view, family)) sampled.add(asn);
  return [...sampled].filter((asn) => before.asns.has(asn) && after.asns.has(asn)).sort((a, b) => a - b);
}

/** What changed between the ASN objects `before` and `after`. */
function asnChanges(before: AsnView, after: AsnView, sample: AddressSample, holders: SampledHolders): AsnChanges {
  const counts = { ipv4: { sampled: 0, answered: 0, changed: 0 }, ipv6: { sampled: 0, answered: 0, changed: 0 } };
  forEachSampled(sample, (family, index, w0, w1, w2, w3) => {
    const tally = counts[family];
    tally.sampled++;
    const was = before.table.holderOf(w0, w1, w2, w3);
    const is = holders[family][index] as number;
    if (was === 0 && is === 0) return;
    tally.answered++;
    if (was !== is) tally.changed++;
  });
  const asns = { appeared: 0, disappeared: 0, inBoth: 0, renamed: 0, renamedExamples: [] as { asn: number; before: string; after: string }[] };
  const changes = { ipv4: [] as HoldingChange[], ipv6: [] as HoldingChange[] };
  for (const asn of new Set([...before.asns.keys(), ...after.asns.keys()])) {
    const was = before.asns.get(asn);
    const is = after.asns.get(asn);
    if (was === undefined) asns.appeared++;
    else if (is === undefined) asns.disappeared++;
    else {
      asns.inBoth++;
      if (was.organization !== is.organization) {
        asns.renamed++;
        if (asns.renamedExamples.length < EXAMPLES) asns.renamedExamples.push({ asn, before: was.organization, after: is.organization });
      }
    }
    for (const family of ['ipv4', 'ipv6'] as const) {
      const change = holdingChange(asn, was, is, family);
      if (change.gained > 0 || change.lost > 0) changes[family].push(change);
    }
  }
  const mostGained = (list: readonly HoldingChange[]) => list.reduce<HoldingChange | null>((best, c) => (c.gained > (best?.gained ?? 0) ? c : best), null);
  const mostChanged = (list: HoldingChange[]) => list.sort((a, b) => b.gained + b.lost - (a.gained + a.lost) || a.asn - b.asn).slice(0, LARGEST_LISTED);
  const rerouted = new Set([...changes.ipv4, ...changes.ipv6].map((change) => change.asn));
  const countries = { asns: 0, rerouted: 0, ipv4: { addresses: 0, moved: 0 }, ipv6: { addresses: 0, moved: 0 } };
  for (const asn of asnSample(before, after)) {
    if (rerouted.has(asn)) {
      countries.rerouted++;
      continue;
    }
    countries.asns++;
    const was = (before.asns.get(asn) as AsnHolding).countries;
    const is = (after.asns.get(asn) as AsnHolding).countries;
    for (const family of ['ipv4', 'ipv6'] as const) {
      const found = moved(was, is, family);
      countries[family].addresses += found.addresses;
      countries[family].moved += found.moved;
    }
  }
  return {
    sample: counts,
    asns,
    largestGain: { ipv4: mostGained(changes.ipv4), ipv6: mostGained(changes.ipv6) },
    largest: { ipv4: mostChanged(changes.ipv4), ipv6: mostChanged(changes.ipv6) },
    countries,
  };
}

/**
 * The ASN object of `build` against its own database on the fixed address sample, without another build
 * to compare it with (what the gate checks of a build no bucket's version is compared with).
 *
 * @returns null when the build has no ASN object.
 */
export function buildConsistency(build: ComparedBuild): AsnConsistency | null {
  if (build.asn === undefined) return null;
  const sample = addressSample();
  return asnConsistency(build.asn, sample, holdersOf(build.asn, sample), sampledAnswers(build, sample));
}

/** The ASN section of the diff of `before` and `after`, on `sample` (`sample.ts`), whose answers in the new build's database are `answers`. */
export function asnDiff(before: ComparedBuild, after: ComparedBuild, sample: AddressSample, answers: SampledAnswers): AsnDiff {
  const holders = after.asn && holdersOf(after.asn, sample);
  return {
    object: 'asn',
    before: before.asn?.totals ?? null,
    after: after.asn?.totals ?? null,
    consistency: after.asn && holders ? asnConsistency(after.asn, sample, holders, answers) : null,
    changes: before.asn && after.asn && holders ? asnChanges(before.asn, after.asn, sample, holders) : null,
  };
}
