/**
 * @module The seeded generator (mulberry32, `data/random-words.ts`, as the diff's sample uses it) of the tests' samples
 * and of the benchmark's addresses (`bench/addresses.ts`), so that every sample is the same on every run.
 */
import { randomWords } from '../../data/random-words.ts';

/** A generator uniform in [0, 1), the same sequence for the same `seed`. */
export function seededRandom(seed: number): () => number {
  const words = randomWords(seed);
  return () => words() / 4294967296;
}
