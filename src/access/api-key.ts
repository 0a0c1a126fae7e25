/**
 * @module API keys: `ipgeo_`, 43 random base62 characters (about 256 bits from the platform's CSPRNG)
 * and 6 base62 characters of their CRC-32, shown once and stored only as their SHA-256, which is the KV
 * key that finds them. The checksum refuses a mistyped or made-up key without reading KV (a random string
 * passes once in 2^32); it is no secret, so a key that passes is still looked up. Keys made before it are
 * `legacy` (docs/accounts.md, "Keys without a checksum"). Web Crypto only: runs in workerd and in Node.
 */

/** The fixed start of every key, so that leaked keys are recognisable (e.g. by secret scanners). */
const API_KEY_PREFIX = 'ipgeo_';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Random characters: 62^43 > 2^256. */
const RANDOM_LENGTH = 43;
/** Checksum characters: 62^6 > 2^32. */
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);
const LEGACY_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);

/**
 * What a presented key is, decided without any storage: `checksummed` (the shape of today's keys and
 * a valid checksum), `legacy` (the shape of keys made before the checksum), or `malformed`.
 */
export type ApiKeyForm = 'checksummed' | 'legacy' | 'malformed';

/**
 * A fresh API key: `ipgeo_`, 43 random base62 characters and their 6-character checksum, as GitHub's and
 * Stripe's tokens are made (base62 keeps a key one word for a double click):
 *
 *     ipgeo_ uk9nqsp6lovvRLusm6aY8DKKoDkMHAnhHdyjwezaWR3 3XkaWs   (well-formed, never issued; spaced out)
 *     prefix random part (43)                            CRC-32 (6)
 */
export function generateApiKey(): string {
  let random = '';
  while (random.length < RANDOM_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(RANDOM_LENGTH))) {
      // 248 = 4 × 62: bytes above it are dropped, so that every character is equally likely.
      if (byte < 248 && random.length < RANDOM_LENGTH) random += BASE62[byte % 62];
    }
  }
  const body = API_KEY_PREFIX + random;
  return body + checksumOf(body);
}

/** A fresh key id (`key_` and 12 hex digits), unique within an account; ids are not secret. */
export function generateKeyId(): string {
  return `key_${[...crypto.getRandomValues(new Uint8Array(6))].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The form of `text` as a key (checked before any storage is read).
 *
 * @example apiKeyForm(generateApiKey()) // 'checksummed'
 * @example apiKeyForm('ipgeo_' + 'A'.repeat(49)) // 'malformed' (its checksum is wrong)
 */
export function apiKeyForm(text: string): ApiKeyForm {
  if (KEY_PATTERN.test(text)) {
    const end = text.length - CHECKSUM_LENGTH;
    return text.slice(end) === checksumOf(text.slice(0, end)) ? 'checksummed' : 'malformed';
  }
  return LEGACY_KEY_PATTERN.test(text) ? 'legacy' : 'malformed';
}

/**
 * CRC-32 (ISO-HDLC, as zlib, PNG and Ethernet compute it: reflected polynomial 0xEDB88320, initial
 * value and final XOR 0xFFFFFFFF) of the character codes of `ascii`, as an unsigned 32-bit number.
 *
 * @example crc32('123456789') // 0xcbf43926, the polynomial's check value
 */
function crc32(ascii: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < ascii.length; i++) {
    crc = (CRC_TABLE[(crc ^ ascii.charCodeAt(i)) & 0xff] as number) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** The CRC-32 remainder of every byte value, for {@link crc32}. */
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let value = byte;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value;
});

/** The checksum characters of a key's first part: its CRC-32 in 6 base62 digits, most significant first. */
function checksumOf(body: string): string {
  let value = crc32(body);
  let digits = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

/** SHA-256 of a key's UTF-8 text, as 64 lower-case hex digits. */
export async function hashApiKey(key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 9110 section 11.1),
 * or null when the header is absent; '' when it is present but not a Bearer credential.
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1] ?? '';
}
