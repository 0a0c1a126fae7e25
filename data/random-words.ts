/** @module A seeded generator of 32-bit words (mulberry32): the same sequence for the same seed, for samples that must be the same on every run. */

/** mulberry32: 32 random bits a call, as an unsigned integer; the same sequence for the same `seed`. */
export function randomWords(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
