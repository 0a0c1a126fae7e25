/**
 * @module What a geofeed may not make the build do (`data/corrections/geofeed.ts`), tried as its
 * publisher would: a line wider than the widest correction, a line outside the prefixes the operator
 * lets a fetched feed correct, a fetched line quoted back into a log, a feed of endless bad lines read
 * to its end; and the same checks on a feed read as a stream, cut at any byte.
 */
import { describe, expect, it } from 'vitest';
import { FETCHED_FEED_CEILING, MAX_REFUSED_LINES, parseGeofeed, readGeofeed, WIDEST_CORRECTION } from '../../data/corrections/geofeed.ts';
import { parseNetwork } from '../../data/mmdb/network.ts';
import { SourceError } from '../../data/sources/source.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const FETCHED = { fetched: true } as const;

/** The message of the error that reading `text` with `policy` throws. */
function refusal(text: string, policy: Parameters<typeof parseGeofeed>[2]): string {
  try {
    parseGeofeed(encode(text), 'feed.csv', policy);
  } catch (error) {
    expect(error).toBeInstanceOf(SourceError);
    return (error as Error).message;
  }
  throw new Error(`not refused: ${text}`);
}

/** `bytes` in chunks of `size`, as a download gives them (a chunk may end inside a character). */
async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

describe('the widest correction', () => {
  it(`refuses a line wider than a /${WIDEST_CORRECTION[4]} of IPv4 or a /${WIDEST_CORRECTION[6]} of IPv6 in a file of the operator's, unless allowed`, () => {
    const wide = '# the whole Internet\n0.0.0.0/1,KP\n128.0.0.0/2,KP\n2800::/5,KP\n2a00::/18,KP\n';
    const message = refusal(wide, { fetched: false });
    expect(message).toMatch(/^feed\.csv: 4 lines are refused:/);
    expect(message).toContain('line 2: 0.0.0.0/1 is wider than a /8, the widest correction unless data:build or data:update is given --allow-wide-corrections');
    expect(message).toContain('line 4: 2800::/5 is wider than a /19');
    expect(message).toContain('line 5: 2a00::/18 is wider than a /19');
    expect([...parseGeofeed(encode(wide), 'feed.csv', { fetched: false, allowWide: true }).entries].map((e) => e.prefix)).toEqual([
      '0.0.0.0/1',
      '128.0.0.0/2',
      '2800::/5',
      '2a00::/18',
    ]);
    // The widest accepted, exactly.
    expect(parseGeofeed(encode('81.0.0.0/8,GB\n2a00::/19,DE\n'), 'feed.csv').entries).toHaveLength(2);
  });

  it('refuses a wide line of a fetched feed whatever the options, pointing at the prefixes the feed may correct', () => {
    expect(refusal('80.0.0.0/7,GB\n', FETCHED)).toContain(
      'line 1: 80.0.0.0/7 is wider than a /8, the widest line of a published feed without the prefixes it may correct',
    );
  });
});

describe('what a fetched feed covers in all', () => {
  // The ceiling is a /10 of IPv4 and a /19 of IPv6 (FETCHED_FEED_CEILING): many narrow lines, each within
  // the widest line, add up to no more. Built from the ceiling's own figures, not from the code's sums.
  const ipv4Ceiling = 2 ** (32 - FETCHED_FEED_CEILING[4]);
  /** `count` IPv4 /20s (4,096 addresses each), sixteen a /8 from 11.0.0.0 on. */
  const slash20s = (count: number) => Array.from({ length: count }, (_, n) => `${11 + (n >>> 4)}.${(n & 15) * 16}.0.0/20,KP`);

  it('refuses narrow lines that add up to more than the ceiling, saying what they cover', () => {
    const lines = slash20s(ipv4Ceiling / 4096 + 1);
    const message = refusal(lines.join('\n'), FETCHED);
    expect(message).toBe(
      `feed.csv: its lines cover ${ipv4Ceiling + 4096} IPv4 addresses (a /10's worth), over the ceiling of a /10's worth for a published feed without the prefixes it may correct: list them (a feed URL#prefixes=…)`,
    );
  });

  it('counts an address once however many lines hold it, and takes a feed of exactly the ceiling', () => {
    // A /10 and every /20 inside it again, then the /20s of another /10 would cross it; the first alone does not.
    const inside = Array.from({ length: 1024 }, (_, n) => `11.${64 + (n >>> 4)}.${(n & 15) * 16}.0/20,KP`);
    expect(parseGeofeed(encode(['11.64.0.0/10,KP', ...inside].join('\n')), 'feed.csv', FETCHED).entries).toHaveLength(1025);
    expect(refusal(['11.64.0.0/10,KP', ...inside, '12.0.0.0/24,KP'].join('\n'), FETCHED)).toContain(`cover ${ipv4Ceiling + 256} IPv4 addresses`);
  });

  it('refuses IPv6 lines over a /19 in all, and holds neither a local file nor a feed with its prefixes to it', () => {
    const ipv6 = '2a00::/19,KP\n2a01::/48,KP\n';
    expect(refusal(ipv6, FETCHED)).toContain(`feed.csv: its lines cover ${2 ** 45 + 2 ** 16} IPv6 /64s (a /19's worth), over the ceiling of a /19's worth`);
    expect(parseGeofeed(encode(ipv6), 'feed.csv', { fetched: false }).entries).toHaveLength(2);
    const lines = slash20s(ipv4Ceiling / 4096 + 1).join('\n');
    expect(parseGeofeed(encode(lines), 'feed.csv', { fetched: true, allowed: [parseNetwork('0.0.0.0/1')] }).entries).toHaveLength(1025);
    expect(parseGeofeed(encode(lines), 'feed.csv', { fetched: false }).entries).toHaveLength(1025);
  });
});

describe('the prefixes a fetched feed may correct (RFC 8805, section 3.2)', () => {
  const allowed = { fetched: true, allowed: [parseNetwork('81.2.69.0/24'), parseNetwork('2a02:d040::/29')] };

  it('takes the lines inside them, whatever their width, and refuses every other', () => {
    expect(parseGeofeed(encode('81.2.69.0/24,GB\n81.2.69.128/25,FR\n2a02:d040::/29,SE\n'), 'feed', allowed).entries).toHaveLength(3);
    const message = refusal('81.2.69.0/24,GB\n8.8.8.0/24,KP\n81.2.68.0/23,KP\n2a02:d040::/28,KP\n', allowed);
    expect(message).toMatch(/^feed\.csv: 3 lines are refused:/);
    expect(message).toContain('line 2: 8.8.8.0/24 is outside the prefixes this feed may correct (81.2.69.0/24, 2a02:d040::/29; RFC 8805, section 3.2)');
    expect(message).toContain('line 3: 81.2.68.0/23 is outside');
    expect(message).toContain('line 4: 2a02:d040::/28 is outside');
  });
});

describe('a fetched feed is never quoted', () => {
  // What a metadata service or a CI page might answer in place of a feed: secrets, in every field.
  const lines = [
    'aws_secret_access_key=SECRET0,US',
    '8.8.8.1/24,US',
    '8.8.9.0/24,SECRET1',
    '8.8.10.0/24,US,SECRET2,,',
    '8.8.11.0/24,US,GB-SCT,,',
    '8.8.12.0/24,,QQ-ABC,,',
    '8.8.13.0/99,US',
    '::ffff:SECRET5/64,US',
  ];

  it('names each refused line and its reason, and repeats nothing it read', () => {
    const message = refusal(lines.join('\n'), FETCHED);
    expect(message).toMatch(/^feed\.csv: 8 lines are refused:/);
    expect(message).toContain('line 1: the prefix is not an IP address or CIDR network');
    expect(message).toContain('line 2: the prefix has host bits set: the network is 8.8.8.0/24');
    expect(message).toContain('line 3: the country code is not an ISO 3166-1 alpha-2 country code');
    expect(message).toContain('line 4: the region is not an ISO 3166-2 subdivision code');
    expect(message).toContain("line 5: the region is of another country, not of the line's country US");
    expect(message).toContain("line 6: the region's country is not an ISO 3166-1 alpha-2 code");
    expect(message).toContain('line 7: the prefix has no valid prefix length');
    expect(message).not.toMatch(/SECRET|aws_|8\.8\.8\.1\b|\/99|SCT|QQ/);
    // A file of the operator's own is quoted, to find the typo.
    expect(refusal(lines.join('\n'), { fetched: false })).toContain('"aws_secret_access_key=SECRET0"');
  });

  it('says a fetched feed is not CSV without the parser’s words, which quote it', () => {
    const message = refusal('8.8.8.0/24,US\n8.8.9.0/24,U"SECRET,,,\n', FETCHED);
    expect(message).toBe('feed.csv line 2: not CSV (RFC 4180)');
  });
});

describe('a feed of bad lines', () => {
  it(`stops reading after ${MAX_REFUSED_LINES} refused lines, listing the first`, () => {
    const text = Array.from({ length: 10_000 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24,US`).join('\n');
    const message = refusal(text, FETCHED);
    expect(message).toMatch(
      new RegExp(
        `^feed\\.csv: ${MAX_REFUSED_LINES} lines are refused \\(reading stopped at line ${MAX_REFUSED_LINES}, after ${MAX_REFUSED_LINES} refused lines\\):`,
      ),
    );
    expect(message).toContain(`and ${MAX_REFUSED_LINES - 20} more`);
  });

  it('stops a download there: the rest of the stream is never read', async () => {
    let chunks = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      const chunk = encode('10.0.0.0/24,US\n'.repeat(64));
      for (;;) {
        chunks++;
        yield chunk;
      }
    }
    await expect(readGeofeed(endless(), '--geofeed https://feed.example/geofeed.csv', FETCHED)).rejects.toThrow(
      `--geofeed https://feed.example/geofeed.csv: ${MAX_REFUSED_LINES} lines are refused (reading stopped`,
    );
    expect(chunks).toBeLessThanOrEqual(Math.ceil(MAX_REFUSED_LINES / 64) + 1);
  });
});

describe('a feed read as a stream', () => {
  const feed = [
    '\uFEFF# A feed with every form: comments, quotes, CRLF, a city in UTF-8',
    '81.2.69.0/24,GB,GB-ENG,"London, City of",EC1',
    '89.160.20.128/25,SE,SE-E,Linköping,',
    '',
    '2a02:d040::/29,SE,,"Stockholm ""Central""",  # a comment',
    '2.125.160.216/29,GB,,,',
  ].join('\r\n');

  it.each([1, 2, 3, 7, 64, 4096])('reads the same prefixes and lines in chunks of %i bytes as whole', async (size) => {
    const whole = parseGeofeed(encode(feed), 'feed.csv', FETCHED);
    const read = await readGeofeed(chunked(encode(feed), size), 'feed.csv', FETCHED);
    expect(read.prefixes).toBe(whole.entries.length);
    expect(read.prefixes).toBe(4);
    expect(read.lines).toBe(whole.lines);
    expect(Buffer.compare(read.bytes, Buffer.from(encode(feed)))).toBe(0);
  });

  it('refuses a quoted field over two lines and a byte that is not UTF-8 as read whole, whatever the chunks', async () => {
    const twoLines = encode('8.8.8.0/24,US\n8.8.9.0/24,US,,"Two\nLines",\n');
    await expect(readGeofeed(chunked(twoLines, 5), 'feed.csv', FETCHED)).rejects.toThrow('line 3: a quoted field runs over more than one line');
    const latin1 = Uint8Array.from([...encode('8.8.8.0/24,US\n8.8.9.0/24,CH,,Z'), 0xfc, ...encode('rich,\n')]);
    await expect(readGeofeed(chunked(latin1, 4), 'feed.csv', FETCHED)).rejects.toThrow('feed.csv line 2: not UTF-8 (RFC 8805, section 2.1)');
  });
});
