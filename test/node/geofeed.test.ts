/**
 * @module Reading RFC 8805 geofeeds (`data/corrections/geofeed.ts`) against the RFC's own examples:
 * section 2.2's entries and the feeds of the IETF, RIPE NCC and ICANN it quotes, and the lines of its
 * Appendix A test (`ipgeo_feed_validator_test.py`, each with the number of errors the RFC's validator
 * counts); then the format's rules of section 2.1 (comments, blank lines, quoting, case, missing and
 * extra fields) and every line the build refuses, with its reason.
 */
import { describe, expect, it } from 'vitest';
import { parseGeofeed } from '../../data/corrections/geofeed.ts';
import { SourceError } from '../../data/sources/source.ts';

const encode = (text: string) => new TextEncoder().encode(text);
/** The entries of a feed, as the fields the tests compare. */
const entries = (text: string) =>
  [...parseGeofeed(encode(text), 'feed.csv').entries].map(({ line, prefix, countryCode, regionCode, city, postalCode }) => ({
    line,
    prefix,
    countryCode,
    regionCode,
    city,
    postalCode,
  }));
/** The message of the error that reading `text` throws. */
function refusal(text: string): string {
  try {
    parseGeofeed(encode(text), 'feed.csv');
  } catch (error) {
    expect(error).toBeInstanceOf(SourceError);
    return (error as Error).message;
  }
  throw new Error(`not refused: ${text}`);
}

describe("RFC 8805's examples", () => {
  it('reads the feeds of section 2.2: the IETF meeting network, the RIPE NCC and ICANN', () => {
    const feed = [
      '# IETF106 (Singapore) - November 2019 - Singapore, SG',
      '130.129.0.0/16,SG,SG-01,Singapore,',
      '2001:df8::/32,SG,SG-01,Singapore,',
      '31.133.128.0/18,SG,SG-01,Singapore,',
      '31.130.224.0/20,SG,SG-01,Singapore,',
      '2001:67c:1230::/46,SG,SG-01,Singapore,',
      '2001:67c:370::/48,SG,SG-01,Singapore,',
      '193.0.24.0/21,NL,NL-ZH,Rotterdam,',
      '2001:67c:64::/48,NL,NL-ZH,Rotterdam,',
      '199.91.192.0/21,MA,MA-07,Marrakech',
      '2620:f:8000::/48,MA,MA-07,Marrakech',
    ].join('\n');
    const singapore = { countryCode: 'SG', regionCode: '01', city: 'Singapore', postalCode: '' };
    const rotterdam = { countryCode: 'NL', regionCode: 'ZH', city: 'Rotterdam', postalCode: '' };
    const marrakech = { countryCode: 'MA', regionCode: '07', city: 'Marrakech', postalCode: '' };
    expect(entries(feed)).toEqual([
      { line: 2, prefix: '130.129.0.0/16', ...singapore },
      { line: 3, prefix: '2001:df8::/32', ...singapore },
      { line: 4, prefix: '31.133.128.0/18', ...singapore },
      { line: 5, prefix: '31.130.224.0/20', ...singapore },
      { line: 6, prefix: '2001:67c:1230::/46', ...singapore },
      { line: 7, prefix: '2001:67c:370::/48', ...singapore },
      { line: 8, prefix: '193.0.24.0/21', ...rotterdam },
      { line: 9, prefix: '2001:67c:64::/48', ...rotterdam },
      // ICANN's lines have four fields: the postal code, optional, may go with its comma.
      { line: 10, prefix: '199.91.192.0/21', ...marrakech },
      { line: 11, prefix: '2620:f:8000::/48', ...marrakech },
    ]);
  });

  // Section 2.2's first example is in the documentation ranges (RFC 5737, RFC 3849), where the service
  // answers nothing: refused as such, and read as the RFC means it with the prefixes moved to public ones.
  const section22 = [
    '192.0.2.0/25,US,US-AL,,',
    '192.0.2.5,US,US-AL,Alabaster,',
    '192.0.2.128/25,PL,PL-MZ,,',
    '2001:db8::/32,PL,,,',
    '2001:db8:cafe::/48,PL,PL-MZ,,',
  ];

  it("reads section 2.2's entries at country, region and city level, and single addresses as /32", () => {
    const moved = section22.map((line) => line.replace('192.0.2.', '55.66.77.').replace('2001:db8:', '2a00:1450:'));
    expect(entries(moved.join('\r\n'))).toEqual([
      { line: 1, prefix: '55.66.77.0/25', countryCode: 'US', regionCode: 'AL', city: '', postalCode: '' },
      { line: 2, prefix: '55.66.77.5/32', countryCode: 'US', regionCode: 'AL', city: 'Alabaster', postalCode: '' },
      { line: 3, prefix: '55.66.77.128/25', countryCode: 'PL', regionCode: 'MZ', city: '', postalCode: '' },
      { line: 4, prefix: '2a00:1450::/32', countryCode: 'PL', regionCode: '', city: '', postalCode: '' },
      { line: 5, prefix: '2a00:1450:cafe::/48', countryCode: 'PL', regionCode: 'MZ', city: '', postalCode: '' },
    ]);
  });

  it("refuses section 2.2's documentation prefixes, naming the range", () => {
    const message = refusal(section22.join('\n'));
    expect(message).toMatch(/^feed\.csv: 5 lines are refused:/);
    expect(message).toContain('line 1: 192.0.2.0/25 is in 192.0.2.0/24, a documentation network (TEST-NET-1) (RFC 5737): the service answers no address there');
    expect(message).toContain('line 2: 192.0.2.5/32 is in 192.0.2.0/24');
    expect(message).toContain('line 4: 2001:db8::/32 is in 2001:db8::/32, a documentation prefix (RFC 3849)');
  });

  // Appendix A's test: each line, and the errors the RFC's validator finds in it (its warnings, for
  // missing or extra fields, are no errors). The build refuses a line exactly where the RFC counts an
  // error, and beyond it, the documentation prefix that the RFC's validator does not check.
  const APPENDIX_A: readonly (readonly [string, number])[] = [
    ['# asdf', 0],
    ['   ', 0],
    ['', 0],
    ['asdf', 1],
    ['asdf,US,,,', 1],
    ['aaaa::,US,,,', 0],
    ['zzzz::,US', 1],
    [',US,,,', 1],
    ['55.66.77', 1],
    ['55.66.77.888', 1],
    ['55.66.77.asdf', 1],
    ['55.66.77.88,PL', 0],
    ['55.66.77.88,PL,,,', 0],
    ['55.66.77.88,,,,', 0],
    ['55.66.77.88,ZZ,,,', 0],
    ['55.66.77.88,US,,,', 0],
    ['55.66.77.88,USA,,,', 1],
    ['55.66.77.88,99,,,', 1],
    ['55.66.77.88,US,US-CA,,', 0],
    ['55.66.77.88,US,USA-CA,,', 1],
    ['55.66.77.88,USA,USA-CA,,', 2],
    ['55.66.77.88,US,US-CA,Mountain View,', 0],
    ['55.66.77.88,US,US-CA,Mountain View,94043', 0],
    ['55.66.77.88,US,US-CA,Mountain View,94043,1600 Ampthitheatre Parkway', 0],
    ['55.66.77.0/24,US,,,', 0],
    ['55.66.77.88/24,US,,,', 1],
    ['55.66.77.88/32,US,,,', 0],
    ['55.66.77/24,US,,,', 1],
    ['55.66.77.0/35,US,,,', 1],
    ['172.15.30.1,US,,,', 0],
    ['172.28.30.1,US,,,', 1],
    ['192.167.100.1,US,,,', 0],
    ['192.168.100.1,US,,,', 1],
    ['10.0.5.9,US,,,', 1],
    ['10.0.5.0/24,US,,,', 1],
    ['fc00::/48,PL,,,', 1],
    ['fe00::/48,PL,,,', 0],
  ];

  it("refuses exactly the lines of Appendix A's test in which the RFC finds errors", () => {
    for (const [line, errors] of APPENDIX_A) {
      if (errors === 0) expect(() => parseGeofeed(encode(line), 'feed.csv'), line).not.toThrow();
      else expect(refusal(line), line).toMatch(/^feed\.csv: a line is refused:\n {2}line 1: /);
    }
  });

  it("refuses Appendix A's documentation prefix, which the RFC's validator accepts", () => {
    expect(refusal('2001:db8:cafe::/48,PL,PL-MZ,,02-784')).toContain('2001:db8:cafe::/48 is in 2001:db8::/32, a documentation prefix');
    expect(refusal('2001:db8:cafe::/48')).toContain('documentation prefix');
  });

  it("reads Appendix A's accepted lines as the RFC means them", () => {
    const accepted = APPENDIX_A.filter(([line, errors]) => errors === 0 && line.trim() !== '' && !line.startsWith('#')).map(([line]) => line);
    const read = accepted.map((line) => entries(line)[0]);
    expect(read[0]).toEqual({ line: 1, prefix: 'aaaa::/128', countryCode: 'US', regionCode: '', city: '', postalCode: '' });
    // An empty country and ZZ both say "no location" (RFC 8805, section 2.1.2).
    expect(read[3]).toMatchObject({ prefix: '55.66.77.88/32', countryCode: '' });
    expect(read[4]).toMatchObject({ prefix: '55.66.77.88/32', countryCode: '' });
    expect(entries('55.66.77.88,US,US-CA,Mountain View,94043,1600 Ampthitheatre Parkway')[0]).toEqual({
      line: 1,
      prefix: '55.66.77.88/32',
      countryCode: 'US',
      regionCode: 'CA',
      city: 'Mountain View',
      postalCode: '94043',
    });
  });
});

describe('the format of section 2.1', () => {
  it('takes a byte-order mark, CRLF and LF, blank lines, comments, quotes, spaces, any case and missing fields', () => {
    const feed = [
      '\uFEFF# IP Prefix,Alpha2code,Region,City,Postal Code',
      '',
      '   ',
      '  # an indented comment',
      '55.66.77.0/24,us,us-ca,San Francisco,94107 # a comment after the fields',
      '"2a00:1450::/32","SE","SE-E","Linköping",""',
      ' 81.2.69.0/24 , GB , GB-ENG , London ,',
      '8.8.8.0/24,US',
      '::FFFF:1.2.3.0/120,,GB-ENG',
    ].join('\r\n');
    expect(entries(`${feed}\n9.9.9.0/24,,CH-ZH,Zürich,8001`)).toEqual([
      { line: 5, prefix: '55.66.77.0/24', countryCode: 'US', regionCode: 'CA', city: 'San Francisco', postalCode: '94107' },
      { line: 6, prefix: '2a00:1450::/32', countryCode: 'SE', regionCode: 'E', city: 'Linköping', postalCode: '' },
      { line: 7, prefix: '81.2.69.0/24', countryCode: 'GB', regionCode: 'ENG', city: 'London', postalCode: '' },
      { line: 8, prefix: '8.8.8.0/24', countryCode: 'US', regionCode: '', city: '', postalCode: '' },
      // An IPv4-mapped prefix is the IPv4 one it maps; a region alone gives its country.
      { line: 9, prefix: '1.2.3.0/24', countryCode: 'GB', regionCode: 'ENG', city: '', postalCode: '' },
      { line: 10, prefix: '9.9.9.0/24', countryCode: 'CH', regionCode: 'ZH', city: 'Zürich', postalCode: '8001' },
    ]);
  });

  it('counts every line of the file, comments and blank ones included', () => {
    expect(parseGeofeed(encode('# one\n\n8.8.8.0/24,US\n'), 'feed.csv').lines).toBe(3);
    expect(parseGeofeed(encode('# one\r\n8.8.8.0/24,US'), 'feed.csv').lines).toBe(2);
  });

  it('refuses each kind of bad line, naming the file, the line and the reason, all lines at once', () => {
    const message = refusal(
      [
        '# faults, one a line',
        '55.66.77.0/33,US',
        '55.66.77.88/24,US',
        '10.1.0.0/16,US',
        '100.64.0.0/10,US',
        'fe80::/64,US',
        '55.66.78.0/24,XX',
        '55.66.79.0/24,UK,,London,',
        '55.66.80.0/24,FR,GB-ENG,Paris,',
        '55.66.81.0/24,US,California,,',
        '55.66.82.0/24,,,Paris,',
        '55.66.83.0/24,US',
        '55.66.83.0/24,CA',
        '::/64,US',
        '2002:102:300::/40,US',
        '55.66.84.0/24,US,,"Two',
        'Lines",',
        '::fffe:0:0/95,US',
        '::102:300/120,US',
        '::ffff:0:0/95,US',
      ].join('\n'),
    );
    expect(message).toMatch(/^feed\.csv: 17 lines are refused:/);
    for (const expected of [
      'line 2: "55.66.77.0/33" has no valid prefix length (0 to 32)',
      'line 3: "55.66.77.88/24" has host bits set: the network is 55.66.77.0/24',
      'line 4: 10.1.0.0/16 is in 10.0.0.0/8, a private-use network (RFC 1918)',
      'line 5: 100.64.0.0/10 is in 100.64.0.0/10, a shared address space (carrier-grade NAT) (RFC 6598)',
      'line 6: fe80::/64 is in fe80::/10, a link-local prefix (RFC 4291)',
      'line 7: "XX" is not an ISO 3166-1 alpha-2 country code',
      'line 8: "UK" is not an ISO 3166-1 alpha-2 country code: the United Kingdom is GB',
      "line 9: region GB-ENG is of GB, not of the line's country FR",
      'line 10: "California" is not an ISO 3166-2 subdivision code',
      'line 11: names a city but no country',
      'line 13: 55.66.83.0/24 again, already given on line 12',
      'line 14: ::/64 reaches into ::/96, where the database keeps IPv4',
      'line 15: 2002:102:300::/40 is in 6to4 2002::/16',
      'line 17: a quoted field runs over more than one line',
      // Half of it is the IPv4-mapped block, which the database answers as IPv4: refused, as a flag list's entry is.
      'line 18: ::fffe:0:0/95 covers part of ::ffff:0:0/96 (IPv4-mapped)',
      'line 19: ::102:300/120 reaches into ::/96',
      'line 20: "::ffff:0:0/95" has host bits set: the network is ::fffe:0:0/95',
    ]) {
      expect(message).toContain(expected);
    }
  });

  it('refuses a file that is not UTF-8, or not CSV, naming the line', () => {
    const latin1 = Uint8Array.from([...encode('# Zürich in UTF-8 is fine\n8.8.8.0/24,CH,,Z'), 0xfc, ...encode('rich,\n')]);
    expect(() => parseGeofeed(latin1, 'feed.csv')).toThrow('feed.csv line 2: not UTF-8 (RFC 8805, section 2.1)');
    expect(() => parseGeofeed(encode('8.8.8.0/24,US\n8.8.9.0/24,U"S,,,\n'), 'feed.csv')).toThrow(/^feed\.csv line 2: not CSV \(RFC 4180\): /);
  });
});
