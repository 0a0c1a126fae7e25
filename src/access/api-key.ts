/**
 * @module API keys: made of 256 random bits, shown once, stored only as their SHA-256.
 *
 * A key reads `ipgeo_` followed by 43 base64url characters (32 bytes from the platform's CSPRNG). Its
 * hash is the KV index key that finds it, so the Worker never compares a presented key against stored
 * secrets one by one; the single remaining comparison, of the found hash, is constant-time
 * (`access/check.ts`). Runs in workerd and in Node (the operator tool), on Web Crypto only.
 */

/** The fixed start of every key, so that leaked keys are recognisable (e.g. by secret scanners). */
export const API_KEY_PREFIX = 'ipgeo_';
const API_KEY_PATTERN = /^ipgeo_[A-Za-z0-9_-]{43}$/;

/** A fresh API key: `ipgeo_` and 43 base64url characters (256 bits). */
export function generateApiKey(): string {
  return API_KEY_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** A fresh key id (`key_` and 12 hex digits), unique within an account; ids are not secret. */
export function generateKeyId(): string {
  return `key_${[...crypto.getRandomValues(new Uint8Array(6))].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** Whether `text` has the shape of a key (checked before any storage is read). */
export function isApiKeyShaped(text: string): boolean {
  return API_KEY_PATTERN.test(text);
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

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}
