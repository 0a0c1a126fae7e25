/**
 * @module The entry of the usage Worker (`ipgeo-usage`, docs/storage.md, "Usage"): it defines the
 * usage store's Durable Object class, which the four paid deployments bind by this Worker's name, so
 * that their counts land in one store; and it answers the operator tool's reads (`usage/operator-reads.ts`).
 */
import { answerOperatorRead, type UsageStoreEnv } from './usage/operator-reads.ts';

export default {
  fetch(request, env) {
    return answerOperatorRead(request, env);
  },
} satisfies ExportedHandler<UsageStoreEnv>;

export { UsageLedger } from './usage/ledger.ts';
