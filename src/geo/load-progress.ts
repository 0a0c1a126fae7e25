/**
 * @module When a load (or a minute's check) is stuck: each reports progress as it goes (bytes read, a
 * step finished), and one that has made none for {@link LOAD_STALLED_MS} is taken as stuck. The next
 * request may then begin another in its place, which the stuck one gives way to at its next report
 * ({@link ReadStopped}): how `loading.ts` keeps one load making progress at a time.
 */
import { ReadStopped } from './bucket.ts';

/**
 * A load or a minute's check that has made no progress (read no bytes, finished no step) for this long
 * is stuck: waiters answer 503, and the next request starts another, which the stuck one gives way to
 * at its next step.
 */
export const LOAD_STALLED_MS = 5_000;

/** A load or a minute's check under way. */
export interface Task {
  readonly since: number;
  /** When it last made progress: bytes read, or a step finished (or when it began). */
  progressAt: number;
}

/** Whether `task` is under way and has made progress within {@link LOAD_STALLED_MS} of `now`. */
export function progressing(task: Task | undefined, now: number): task is Task {
  return task !== undefined && now - task.progressAt < LOAD_STALLED_MS;
}

/**
 * The progress callback of `task` for the reads it makes: marks it progressing at `now()`, or, once
 * another task has taken its place (`current()` is not it), stops it ({@link ReadStopped}).
 */
export function progressOf(task: Task, current: () => Task | undefined, now: () => number): () => void {
  return () => {
    if (current() !== task) throw new ReadStopped('another took its place, having found it stuck');
    task.progressAt = now();
  };
}
