/**
 * @module The answer to a page of an ASN (docs/api.md, "Networks by ASN"), as a plain object in the
 * order the routes write it, JSON or XML (`format/xml.ts` writes it), and the bound on its size that the
 * layout's bounds give.
 */
import type { XmlValue } from '../format/xml.ts';
import type { AsnCountry, AsnPage } from '../geo/asn-layout.ts';

/** An ASN answer: the ASN's totals (the same on every page) and one page of its prefixes. */
export interface AsnAnswer {
  /** The AS number in decimal, as `asn` of the IP info record. */
  readonly asn: string;
  readonly organization: string;
  readonly prefixes: { readonly ipv4: readonly string[]; readonly ipv6: readonly string[] };
  readonly addresses: { readonly ipv4: number; readonly ipv6: number };
  readonly countries: readonly AsnCountry[];
  /** This page, from 1, and how many there are. */
  readonly page: number;
  readonly pages: number;
  readonly prefixTotals: { readonly ipv4: number; readonly ipv6: number };
}

/**
 * The most bytes an answer takes, JSON or XML (96 KiB): a page of 1,000 of the longest IPv6 prefixes,
 * 256 countries with the largest counts, an organisation name of 512 bytes that all need escaping
 * (`test/node/asn-layout.test.ts` renders that answer).
 */
export const ASN_ANSWER_MAX_BYTES = 98_304;

/** The answer of a stored page. */
export function asnAnswer(page: AsnPage): AsnAnswer {
  return {
    asn: String(page.asn),
    organization: page.organization,
    prefixes: { ipv4: page.ipv4, ipv6: page.ipv6 },
    addresses: page.addresses,
    countries: page.countries,
    page: page.page + 1,
    pages: page.pages,
    prefixTotals: page.prefixTotals,
  };
}

/** The XML form of an answer: the same members, a country placed nowhere with an empty `code`. */
export function asnXmlBody(answer: AsnAnswer): Record<string, XmlValue> {
  return {
    asn: answer.asn,
    organization: answer.organization,
    prefixes: { ...answer.prefixes },
    addresses: { ...answer.addresses },
    countries: answer.countries.map((country) => ({ code: country.code ?? '', ipv4: country.ipv4, ipv6: country.ipv6 })),
    page: answer.page,
    pages: answer.pages,
    prefixTotals: { ...answer.prefixTotals },
  };
}
