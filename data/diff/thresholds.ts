/**
 * @module The diff gate's thresholds, in one place: how much of each data object of a version may change
 * from the version a deployment serves to the build that replaces it (`data:diff`). Location fields sit
 * about three times or more above the largest change between real GeoLite2 releases (BENCHMARKS.md, "The
 * diff gate"); ASN and flags, which the registry has no history of, are argued in `basis` and in
 * docs/operations.md ("The diff gate").
 */
import type { DiffField } from './facts.ts';

/** A threshold: a share from 0 to 1, and why it is that. */
interface Threshold {
  readonly share: number;
  readonly basis: string;
}

/** What the ASN object's section measures (`asn-diff.ts`); `consistency` is no threshold: any mismatch is a broken build. */
export type AsnMeasure = 'sampledAsn' | 'largestGain' | 'asnsChanged' | 'renamed' | 'totals' | 'countries' | 'consistency';

/** A measure over its threshold, as the report's JSON gives it and its table says it. */
export interface Breach {
  /** The data object of the section. */
  readonly object: 'database' | 'asn';
  readonly field: DiffField | AsnMeasure;
  /** The family measured, where the measure has one. */
  readonly family?: 'ipv4' | 'ipv6';
  /** What was measured: a share from 0 to 1; for `largestGain` IPv4 addresses or IPv6 /64s; for `consistency` mismatched addresses. */
  readonly value: number;
  readonly threshold: number;
  /** The breach in words, as the table's verdict gives it. */
  readonly said: string;
  /** Why the threshold is where it is. */
  readonly basis: string;
}

/** The ASN object's thresholds (`asn-diff.ts`). */
interface AsnThresholds {
  /** Of the answered sample addresses, the share whose ASN (by the objects' prefixes) changed. */
  readonly sampledAsn: Threshold;
  /** The most one ASN may gain (held now, not before): IPv4 addresses, IPv6 /64s. */
  readonly largestGain: { readonly ipv4: number; readonly ipv6: number; readonly basis: string };
  /** ASNs that appeared or disappeared, as a share of the old object's ASNs. */
  readonly asnsChanged: Threshold;
  /** ASNs in both whose organisation changed, as a share of them. */
  readonly renamed: Threshold;
  /** The change of each total (ASNs, prefixes and addresses of each family), as a share of the old one. */
  readonly totals: Threshold;
  /** Of the addresses of the sampled ASNs whose prefixes did not change, the share placed in another country. */
  readonly countries: Threshold;
}

/** The thresholds, by data object and field; the same for IPv4 and IPv6 where a measure has both. */
export const THRESHOLDS: { readonly database: Readonly<Record<DiffField, Threshold>>; readonly asn: AsnThresholds } = {
  database: {
    countryCode: {
      share: 0.02,
      basis:
        'Real releases move under 0.2% of IPv4 addresses and 1% of IPv6 /64s to another country, even five releases apart; the widest correction line accepted, a /8 (IPv4) or a /19 (IPv6), is 0.45% or 1.6% of what the default build answers.',
    },
    regionCode: { share: 0.15, basis: 'Real releases change up to about 4% of regions, in the release that redraws them; 15% is over three times that.' },
    cityName: { share: 0.3, basis: 'Real releases change up to about 10% of cities; 30% is three times that.' },
    coordinates: { share: 0.15, basis: 'Real releases move up to about 4.5% of answers over 50 km; 15% is over three times that.' },
    asn: {
      share: 0.05,
      basis:
        'Origin ASNs follow routing, which moves addresses between networks by transfers and re-announcements: a fraction of a percent between two refreshes. 5% is a source that changed, or broke.',
    },
    organization: {
      share: 0.1,
      basis:
        'An answer’s organisation changes with its ASN (5% above) or with its holder’s name, which registries change for a small share of ASNs a year (mergers, rebrandings). 10% is a source that names holders differently (another source, another encoding, names cut), or a rename of the networks that hold a tenth of the addresses.',
    },
    isVpn: {
      share: 0.005,
      basis:
        'X4BNet’s VPN list flags under 0.1% of answered IPv4 and 0.15% of IPv6 /64s; its IPv4 ceiling (a /8) keeps it below 0.5%, so a change past that is another source, or a poisoned one (its IPv6 ceiling, a /20, is 0.8% of IPv6: a list grown that far is stopped too, for the operator to read).',
    },
    isTor: {
      share: 0.0001,
      basis:
        'Some thousand exit relays, each one address: about 0.00003% of answered IPv4; the list’s ceiling (a /16) keeps it under 0.002%, so 0.01% (some 370,000 addresses) is another source, or a poisoned one.',
    },
    isRelay: { share: 0.001, basis: 'Private Relay’s egress flags under 0.01% of answered IPv4; 0.1% is ten times that.' },
    isHosting: {
      share: 0.02,
      basis:
        'Every hosting list together flags about 11% of answered IPv4; lists grow by their providers’ new networks, a few percent of that a month. 2% is a fifth of all they flag: a list replaced, or poisoned.',
    },
    isProxy: { share: 0.01, basis: 'VPN, Tor, relay and proxy sources together; 1% is ten times what the lists flag now.' },
    accuracyRadius: { share: 0.35, basis: 'Real releases change up to about 11% of radii, in the same release that redraws cities; 35% is three times that.' },
  },
  asn: {
    sampledAsn: {
      share: 0.05,
      basis:
        'As for the database’s asn: prefixes move between ASNs by transfers and re-announcements, a fraction of a percent of addresses between two refreshes. 5% is a routing source that changed, or broke.',
    },
    largestGain: {
      ipv4: 2 ** 22,
      ipv6: 2 ** 46,
      basis:
        'A network grows by what its registry or a transfer gives it: a /10 of IPv4 is among the largest blocks ever transferred, and the largest IPv6 holdings besides 6to4 are /19s. One ASN gaining more in one refresh (a /8 taken, an IPv6 /16) is a hijack in the source, or a source replaced.',
    },
    asnsChanged: {
      share: 0.05,
      basis:
        'ASNs enter routing as registries assign them and leave as networks merge or stop announcing: the routed ASNs grow by a few percent a year, so a fraction of a percent between refreshes. 5% of them is a source truncated or replaced.',
    },
    renamed: {
      share: 0.1,
      basis:
        'Organisation names follow registry records, renamed by mergers and rebrandings: a small share of ASNs a year. 10% renamed at once is a source that names them differently (another source, another encoding, names cut).',
    },
    totals: {
      share: 0.1,
      basis:
        'Routed IPv4 space barely moves now that the registries have run out, routed IPv6 and the prefix counts grow by some percent a year. A total 10% larger or smaller in one refresh is a source truncated, doubled or replaced.',
    },
    countries: {
      share: 0.02,
      basis:
        'An ASN whose prefixes did not change moves between countries only with the location data, whose real releases move under 0.2% of IPv4 and 0.5% of IPv6 to another country. 2%, as for the database’s country, is locations moved wholesale, or the object’s countries counted wrong.',
    },
  },
};
