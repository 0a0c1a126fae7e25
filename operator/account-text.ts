/** @module How the operator tool prints accounts: `list`'s table and the summary each command that changes an account prints. */
import { standingOf } from '../src/access/account.ts';
import type { AccountView } from './account-view.ts';
import { isRevoked } from './keys.ts';

/** `list`: one row per account, columns aligned. LAST DAY is the last day with access: a cancelled account's is the day it was cancelled. */
export function accountTable(views: readonly AccountView[], now: Date): string {
  if (views.length === 0) return 'No accounts.';
  const rows = views.map((view) => {
    const standing = standingOf({ ...view, v: 1, keys: [] }, now.getTime());
    return [
      view.id,
      standing.active ? 'active' : standing.reason,
      standing.active ? (view.expires ?? '-') : standing.since,
      String(view.keys.filter((key) => !isRevoked(key, now)).length),
      view.ignoredIps.length === 0 ? String(view.ips.length) : `${view.ips.length} (${view.ignoredIps.length} ignored)`,
      String(view.domains.length),
    ];
  });
  const table = [['ACCOUNT', 'STATUS', 'LAST DAY', 'KEYS', 'IPS', 'DOMAINS'], ...rows];
  const widths = table[0]?.map((_, column) => Math.max(...table.map((row) => (row[column] ?? '').length))) ?? [];
  return table
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * What an account is now, first line first. The first line says whether it gives access: a cancelled
 * account's last day is not shown there, since "cancelled, access through …" reads as if access went on.
 */
export function describe(view: AccountView): string {
  const now = new Date();
  const keys = view.keys.map((key) =>
    key.revokedAt === null ? key.id : isRevoked(key, now) ? `${key.id} (revoked)` : `${key.id} (works until ${key.revokedAt}, then revoked)`,
  );
  const standing = standingOf({ ...view, v: 1, keys: [] }, now.getTime());
  const state = standing.active
    ? view.expires === null
      ? 'active, with no last day'
      : `active, access through ${view.expires} (UTC)`
    : standing.reason === 'cancelled'
      ? `cancelled: its keys, server addresses and website hostnames no longer give access (running servers stop accepting them within about 90 seconds; renew reactivates it)`
      : `expired: access ended with ${standing.since} (UTC); renew gives a new last day`;
  return [
    `Account ${view.id}: ${state}.`,
    `  keys: ${keys.join(', ') || 'none'}`,
    `  server addresses: ${view.ips.map((ip) => (view.ignoredIps.some((ignored) => ignored.ip === ip) ? `${ip} (ignored: allow-ip refuses it now; remove it with disallow-ip)` : ip)).join(', ') || 'none'}`,
    `  website hostnames: ${view.domains.join(', ') || 'none'}`,
    `  quotas: ${quotaText(view.quotas)}`,
  ].join('\n');
}

/** An account's quotas in words. */
function quotaText(quotas: AccountView['quotas']): string {
  const parts = [
    ...(quotas.monthly === null ? [] : [`${quotas.monthly} lookups per month by keys and server addresses`]),
    ...(quotas.dailyWebsite === null ? [] : [`${quotas.dailyWebsite} lookups per day by a whitelisted website alone`]),
    ...(quotas.monthlyWebsite === null ? [] : [`${quotas.monthlyWebsite} lookups per month by a whitelisted website alone`]),
  ];
  return parts.join(', ') || 'none';
}
