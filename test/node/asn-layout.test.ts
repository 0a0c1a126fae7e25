/**
 * @module The bounds of the ASN object (`src/geo/asn-layout.ts`) as an attacker meets them: the size no
 * answer exceeds, data the build refuses (a name too long, too many countries), and the index and
 * blocks a Worker refuses (another format or size, a record past its block, a prefix too long).
 */
import { describe, expect, it } from 'vitest';
import { buildAsnObject } from '../../data/asn/object.ts';
import type { AsnRanges } from '../../data/asn/ranges.ts';
import { SourceError } from '../../data/sources/source.ts';
import { ASN_ANSWER_MAX_BYTES, type AsnAnswer, asnXmlBody } from '../../src/asn/answer.ts';
import { toXml } from '../../src/format/xml.ts';
import { ASN_LAYOUT, AsnLayoutError, findInBlock, parseAsnIndex } from '../../src/geo/asn-layout.ts';
import { AsnRequestSchemas, MAX_PAGE } from '../../src/schemas/asn.ts';

/** One address of IPv4 per country code `C0`, `C1`, …: a routing source's ASN and a location source that splits it. */
function placedIn(countries: number, organization = 'Example'): { asns: AsnRanges[]; forEachCountry: Parameters<typeof buildAsnObject>[1] } {
  const asns: AsnRanges[] = [{ asn: 64500, organization, ipv4: [{ first: 0x0a000000, last: 0x0a000000 + countries - 1 }], ipv6: [] }];
  const start = new Uint8Array(16);
  return {
    asns,
    forEachCountry: (visit) => {
      for (let i = 0; i < countries; i++) {
        new DataView(start.buffer).setUint32(12, 0x0a000000 + i);
        visit(start, 128, `${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(48 + Math.floor(i / 26))}`);
      }
    },
  };
}

describe('the size of an answer', () => {
  it(`stays within ${ASN_ANSWER_MAX_BYTES} bytes for the largest page the layout allows, JSON and XML`, () => {
    // The longest text of each member: 1,000 IPv6 /128s of four hex digits a group, the most countries
    // with the longest counts, a name of control characters (escaped six times over in JSON) or of `&` (five in XML).
    const prefixes = Array.from({ length: ASN_LAYOUT.pagePrefixes }, (_, i) => `ffff:ffff:ffff:ffff:ffff:ffff:ffff:${(0xf000 + i).toString(16)}/128`);
    const countries = Array.from({ length: ASN_LAYOUT.maxCountries }, () => ({ code: 'XX', ipv4: 2 ** 32, ipv6: 2 ** 64 }));
    for (const [organization, format] of [
      ['\u0001'.repeat(ASN_LAYOUT.maxOrganizationBytes), 'json'],
      ['&'.repeat(ASN_LAYOUT.maxOrganizationBytes), 'xml'],
    ] as const) {
      const answer: AsnAnswer = {
        asn: '4294967295',
        organization,
        prefixes: { ipv4: [], ipv6: prefixes },
        addresses: { ipv4: 2 ** 32, ipv6: 2 ** 64 },
        countries,
        page: MAX_PAGE,
        pages: MAX_PAGE,
        prefixTotals: { ipv4: 2 ** 32, ipv6: 2 ** 32 },
      };
      const text = format === 'json' ? JSON.stringify(answer) : toXml('response', asnXmlBody(answer));
      expect(new TextEncoder().encode(text).byteLength, format).toBeLessThanOrEqual(ASN_ANSWER_MAX_BYTES);
      expect(new TextEncoder().encode(text).byteLength, format).toBeGreaterThan(ASN_ANSWER_MAX_BYTES * 0.6);
    }
  });
});

describe('what the build refuses', () => {
  it(`refuses an organisation name over ${ASN_LAYOUT.maxOrganizationBytes} bytes, naming the ASN`, () => {
    const { asns, forEachCountry } = placedIn(1, 'é'.repeat(ASN_LAYOUT.maxOrganizationBytes / 2 + 1));
    expect(() => buildAsnObject(asns, forEachCountry)).toThrow(new SourceError(`AS64500: its organisation name is 514 bytes, over 512`));
    const fits = placedIn(1, 'é'.repeat(ASN_LAYOUT.maxOrganizationBytes / 2));
    expect(buildAsnObject(fits.asns, fits.forEachCountry).info.asns).toBe(1);
  });

  it(`refuses an ASN placed in more than ${ASN_LAYOUT.maxCountries} countries`, () => {
    const { asns, forEachCountry } = placedIn(ASN_LAYOUT.maxCountries + 1);
    expect(() => buildAsnObject(asns, forEachCountry)).toThrow(/AS64500: its addresses are in 257 countries, over 256/);
    const fits = placedIn(ASN_LAYOUT.maxCountries);
    expect(buildAsnObject(fits.asns, fits.forEachCountry).info.asns).toBe(1);
  });
});

describe('what a Worker refuses', () => {
  const { asns, forEachCountry } = placedIn(3);
  const { bytes, info } = buildAsnObject(asns, forEachCountry);
  const index = bytes.slice(0, info.indexBytes);
  const block = bytes.slice(info.indexBytes, info.indexBytes + info.blockBytes);

  it('reads the index and block it was given', () => {
    const parsed = parseAsnIndex(index, info);
    expect([...parsed.firstAsn]).toEqual([64500]);
    const found = findInBlock(block, 64500, 0);
    expect(found.kind === 'found' && found.page.countries.map((c) => c.code)).toEqual(['A0', 'B0', 'C0']);
    expect(findInBlock(block, 64500, 1)).toEqual({ kind: 'no-page', pages: 1 });
    expect(findInBlock(block, 64501, 0)).toEqual({ kind: 'not-found' });
  });

  it('refuses an index of another format, block count or size', () => {
    const spoilt = (at: number, value: number) => {
      const copy = index.slice();
      copy[at] = value;
      return copy;
    };
    expect(() => parseAsnIndex(spoilt(0, 0), info)).toThrow(AsnLayoutError);
    expect(() => parseAsnIndex(spoilt(9, 2), info)).toThrow(/format 1/);
    expect(() => parseAsnIndex(index, { ...info, blocks: 2 })).toThrow(/1 blocks of 32768 bytes, the record 2 of 32768/);
    expect(() => parseAsnIndex(index.subarray(0, 20), info)).toThrow(/shorter than its header/);
    expect(() => parseAsnIndex(new Uint8Array(ASN_LAYOUT.maxIndexBytes + 1), info)).toThrow(/over 1048576/);
  });

  it('refuses a record that runs past its block or a prefix longer than its family', () => {
    const long = block.slice();
    new DataView(long.buffer).setUint16(8, info.blockBytes);
    expect(() => findInBlock(long.subarray(0, 100), 64500, 0)).toThrow(/runs past it/);
    const prefix = block.slice();
    // The record's last prefix is 10.0.0.2/32: its length byte, then its four bytes.
    const recordBytes = new DataView(prefix.buffer).getUint16(8);
    prefix[recordBytes - 5] = 33;
    expect(() => findInBlock(prefix, 64500, 0)).toThrow(/a prefix is \/33/);
  });
});

describe("what a client may ask (the route's schemas)", () => {
  const asnOf = (text: string) => {
    const parsed = AsnRequestSchemas.params.safeParse({ asn: text });
    return parsed.success ? parsed.data.asn : undefined;
  };
  const pageOf = (text: string | undefined) => {
    const parsed = AsnRequestSchemas.query.safeParse(text === undefined ? {} : { page: text });
    return parsed.success ? (parsed.data.page ?? 1) : undefined;
  };

  it.each([
    ['15169', 15169],
    ['AS15169', 15169],
    ['as15169', 15169],
    ['aS15169', 15169],
    ['0', 0],
    ['4294967295', 4294967295],
  ])('reads %s as AS%s', (text, asn) => {
    expect(asnOf(text)).toBe(asn);
  });

  it.each(['', 'AS', '4294967296', '9999999999', '015169', 'AS015169', '00', '-1', '1.5', '1e3', 'ASN15169', ' 15169', '99999999999', 'AS 1'])(
    'refuses %j',
    (text) => {
      expect(asnOf(text)).toBeUndefined();
    },
  );

  it('reads a page from 1 to 65535, 1 when absent', () => {
    expect(pageOf(undefined)).toBe(1);
    expect(pageOf('2')).toBe(2);
    expect(pageOf('65535')).toBe(65535);
    expect(MAX_PAGE).toBe(0xffff);
    for (const text of ['0', '65536', '01', 'a', '', '1.0', '-2', '1e3', ' 2', '0x10']) expect(pageOf(text), text).toBeUndefined();
  });
});
