/**
 * @module The real-data build with corrections that the Worker tests of corrections serve: the default
 * sources with `test/fixtures/corrections/paris.csv`, built by the global setup (`global-setup.ts`) into
 * {@link CORRECTED_BUILD_DIR} when it is missing or was built from other sources or corrections.
 */

/** The corrections file, from the repository root. */
export const PARIS_CORRECTIONS = 'test/fixtures/corrections/paris.csv';

/** Where the build goes, from the repository root (served to workerd by `REPO_FILES`). */
export const CORRECTED_BUILD_DIR = 'data/out/corrected';
