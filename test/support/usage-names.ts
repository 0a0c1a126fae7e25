/** @module Names that the paid test projects' configuration (Node) and the usage tests (workerd) share. */

/** The operator's read token of the usage Worker in the tests (its secret `USAGE_READ_TOKEN`). */
export const TEST_USAGE_READ_TOKEN = 'test-usage-read-token';

/** The name of the second paid deployment's Worker in the tests; the runner reaches it as `SECOND_PAID`. */
export const SECOND_PAID_WORKER = 'ipgeo-sg';

/** The name of the usage Worker of the fault tests (`usage-faults-worker.ts`); the runner binds its class as `FAULTY_USAGE` and its fetch as `USAGE_FAULTS`. */
export const FAULTY_USAGE_WORKER = 'ipgeo-usage-faults';
