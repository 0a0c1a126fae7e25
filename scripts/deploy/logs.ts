/**
 * @module Workers Logs of every Worker the deploy makes (the five apps, the usage Worker, the shard
 * Workers): observability on, invocation logs off unless the operator's `invocationLogs` setting turns
 * them on for one Worker while debugging (`settings.ts`). With invocation logs off, only the lines the
 * code writes itself are logged: the data events and the bounded operational events (docs/production.md).
 */

type Json = Record<string, unknown>;

/**
 * `observability` (a Worker's section of a wrangler configuration) with logs on and invocation logs
 * `on` or off; its other keys (`head_sampling_rate`, traces) kept.
 */
export function withInvocationLogs(observability: unknown, on: boolean): Json {
  const given = (observability ?? {}) as Json;
  const logs = (given.logs ?? {}) as Json;
  return { ...given, enabled: true, logs: { ...logs, enabled: true, invocation_logs: on } };
}

/**
 * Whether a Worker of `observability` writes an invocation log per invocation: observability and its
 * logs on, and `invocation_logs` not false (wrangler's default is true).
 */
export function invocationLogsOn(observability: unknown): boolean {
  const given = (observability ?? {}) as { enabled?: unknown; logs?: { enabled?: unknown; invocation_logs?: unknown } };
  if (given.enabled !== true) return false;
  return given.logs?.enabled !== false && given.logs?.invocation_logs !== false;
}

/**
 * What a Worker of a written configuration logs, as the deploy and its dry run print it: the section
 * wrangler deploys for `environment` (the top level where the configuration has none), and the setting
 * that turns its invocation logs on or off.
 *
 * @example logsSummary(config, 'de', 'invocationLogs.de (IPGEO_INVOCATION_LOGS_DE)')
 * // 'Workers Logs on, invocation logs off (the data and operational events only); invocationLogs.de (IPGEO_INVOCATION_LOGS_DE) turns them on.'
 */
export function logsSummary(config: Json, environment: string, setting: string): string {
  const section = ((config.env ?? {}) as Record<string, Json>)[environment] ?? config;
  const observability = (section.observability ?? config.observability) as { enabled?: unknown } | undefined;
  if (observability?.enabled !== true)
    return `Workers Logs off: nothing is logged, the data and operational events neither; ${setting} turns invocation logs on.`;
  return invocationLogsOn(observability)
    ? `Workers Logs on, invocation logs ON (one event per invocation, billed by the GB: docs/costs.md); ${setting} turns them off.`
    : `Workers Logs on, invocation logs off (the data and operational events only); ${setting} turns them on.`;
}
