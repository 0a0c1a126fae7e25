/** @module An account as operators see it: everything of its document but key hashes, and which whitelist entries grant nothing. */
import type { AccountDocument } from '../src/access/kv-schema.ts';
import { serverAddressRefusal } from '../src/access/server-address.ts';
import { parseIp } from '../src/ip/address.ts';

/** An account as operators see it: everything but key hashes. */
export interface AccountView {
  id: string;
  status: 'active' | 'cancelled';
  expires: string | null;
  createdAt: string;
  cancelledAt: string | null;
  ips: string[];
  /** Whitelisted addresses that requests are not granted from, since `allow-ip` refuses them today: why, to remove them (`disallow-ip`). */
  ignoredIps: { ip: string; reason: string }[];
  domains: string[];
  keys: { id: string; createdAt: string; revokedAt: string | null }[];
  /** Its quotas of lookups (docs/accounts.md, "Quotas"): null where it has none. */
  quotas: { monthly: number | null; dailyWebsite: number | null; monthlyWebsite: number | null };
}

/** The operator's view of a document: key ids and dates, never hashes. */
export function accountView(account: AccountDocument): AccountView {
  return {
    id: account.id,
    status: account.status,
    expires: account.expires,
    createdAt: account.createdAt,
    cancelledAt: account.cancelledAt,
    ips: [...account.ips],
    ignoredIps: account.ips.flatMap((ip) => {
      const reason = ignoredWhitelistEntry(ip);
      return reason === null ? [] : [{ ip, reason }];
    }),
    domains: [...account.domains],
    keys: account.keys.map(({ id, createdAt, revokedAt }) => ({ id, createdAt, revokedAt })),
    quotas: {
      monthly: account.quotas?.monthly ?? null,
      dailyWebsite: account.quotas?.dailyWebsite ?? null,
      monthlyWebsite: account.quotas?.monthlyWebsite ?? null,
    },
  };
}

/**
 * Why a whitelisted server address grants nothing when a request arrives (`allow-ip` would refuse it
 * today: an entry written before that refusal existed), or null when it is honoured.
 *
 * @example ignoredWhitelistEntry('2a06:98c0:3600::103') // '2a06:98c0:3600::103 is the CF-Connecting-IP that …'
 */
function ignoredWhitelistEntry(address: string): string | null {
  const parsed = parseIp(address);
  return parsed === undefined ? `${JSON.stringify(address)} is not a single IPv4 or IPv6 address.` : serverAddressRefusal(parsed);
}
