/**
 * @module The operator's input, checked and made canonical before anything is read or written: account
 * ids, dates, and server addresses in the form the Worker looks `CF-Connecting-IP` up in, refused
 * where no customer's server sends from (`src/access/server-address.ts`).
 */
import { AccountInputError } from '../src/access/account.ts';
import { AccountIdSchema } from '../src/access/kv-schema.ts';
import { serverAddressRefusal } from '../src/access/server-address.ts';
import { type IpAddress, IpAddressError, parseIpAddress } from '../src/ip/address.ts';

/**
 * Checks an account id.
 *
 * @throws {AccountInputError} when it is not 1 to 63 lower-case letters, digits and hyphens.
 */
export function checkAccountId(accountId: string): string {
  if (!AccountIdSchema.safeParse(accountId).success) {
    throw new AccountInputError(`${JSON.stringify(accountId)} is not an account id: use 1 to 63 lower-case letters, digits and hyphens.`);
  }
  return accountId;
}

/**
 * Checks a calendar date `YYYY-MM-DD`.
 *
 * @throws {AccountInputError} when it is not a real date.
 */
export function checkDate(text: string): string {
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  if (parsed === null || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== text) {
    throw new AccountInputError(`${JSON.stringify(text)} is not a date in the form YYYY-MM-DD.`);
  }
  return text;
}

/**
 * A server address in the canonical form the Worker looks `CF-Connecting-IP` up in.
 *
 * @throws {AccountInputError} when `text` is not an IPv4 or IPv6 address (networks are not accepted).
 * @example canonicalAddress('::FFFF:203.0.113.7') // '203.0.113.7'
 */
export function canonicalAddress(text: string): string {
  return parsedAddress(text).canonical;
}

/**
 * A server address that can be whitelisted, in canonical form: one that a customer's server can send
 * requests from, as `CF-Connecting-IP` shows it (`src/access/server-address.ts`).
 *
 * @throws {AccountInputError} when `text` is not one address, or is one that no request from a server
 *   carries (the message says why: the range, its kind and its RFC, or the address Cloudflare gives
 *   requests of other zones' Workers).
 * @example whitelistableAddress('203.0.113.7') // '203.0.113.7'
 */
export function whitelistableAddress(text: string): string {
  const address = parsedAddress(text);
  const refusal = serverAddressRefusal(address);
  if (refusal !== null) throw new AccountInputError(`${refusal} Whitelist the server's public address.`);
  return address.canonical;
}

function parsedAddress(text: string): IpAddress {
  try {
    return parseIpAddress(text);
  } catch (error) {
    if (error instanceof IpAddressError) throw new AccountInputError(`${JSON.stringify(text)} is not a single IPv4 or IPv6 address.`);
    throw error;
  }
}
