/**
 * @module The diff gate's thresholds, in one place: the largest share of the answered sample addresses
 * (`data:diff`) whose field may change from the version a deployment serves to the build that replaces
 * it. Location fields sit about three times or more above the largest change between real GeoLite2
 * releases (BENCHMARKS.md, "The diff gate"); ASN and flags, which the registry has no history of, are
 * argued in `basis` and in docs/operations.md ("The diff gate").
 */
import type { DiffField } from './facts.ts';

/** A threshold: a share from 0 to 1, and why it is that. */
interface Threshold {
  readonly share: number;
  readonly basis: string;
}

/** The thresholds, by data object and field; the same for IPv4 and IPv6. */
export const THRESHOLDS: { readonly database: Readonly<Record<DiffField, Threshold>> } = {
  database: {
    countryCode: {
      share: 0.02,
      basis: 'Real releases move under 0.2% of IPv4 and 0.5% of IPv6 to another country, even five releases apart; a /8 of corrections is 0.4% of IPv4.',
    },
    regionCode: { share: 0.15, basis: 'Real releases change up to about 4% of regions, in the release that redraws them; 15% is over three times that.' },
    cityName: { share: 0.3, basis: 'Real releases change up to about 10% of cities; 30% is three times that.' },
    coordinates: { share: 0.15, basis: 'Real releases move up to about 4.5% of answers over 50 km; 15% is over three times that.' },
    asn: {
      share: 0.05,
      basis:
        'Origin ASNs follow routing, which moves addresses between networks by transfers and re-announcements: a fraction of a percent between two refreshes. 5% is a source that changed, or broke.',
    },
    isVpn: {
      share: 0.005,
      basis:
        'X4BNet’s VPN list flags under 0.1% of answered IPv4; its ceiling (a /8) keeps it below 0.5%, so a change past that is another source, or a poisoned one.',
    },
    isTor: { share: 0.0001, basis: 'Some thousand exit relays, each one address: the sample seldom meets one; 0.01% is a thousand /16s of them.' },
    isRelay: { share: 0.001, basis: 'Private Relay’s egress flags under 0.01% of answered IPv4; 0.1% is ten times that.' },
    isHosting: {
      share: 0.02,
      basis:
        'Every hosting list together flags about 11% of answered IPv4; lists grow by their providers’ new networks, a few percent of that a month. 2% is a fifth of all they flag: a list replaced, or poisoned.',
    },
    isProxy: { share: 0.01, basis: 'VPN, Tor, relay and proxy sources together; 1% is ten times what the lists flag now.' },
    accuracyRadius: { share: 0.35, basis: 'Real releases change up to about 11% of radii, in the same release that redraws cities; 35% is three times that.' },
  },
};
