/** @module The data tools' command lines (`data:build`, `data:update`, `data:publish`): parsed by `node:util`'s `parseArgs`, answered with their usage on an error or `--help`. */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

/** The options parsed from a command line of `options`. */
export type CommandLineValues<T extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: false }>
>['values'];

/**
 * The options of a data tool's command line, or its exit code when the line is already answered: 2
 * after printing the error and `usage` for a malformed line (an unknown option, a missing value, a
 * positional argument), 0 after printing `usage` for `--help` (`options` should declare `help`).
 *
 * @example const values = parseCommandLine(process.argv.slice(2), { out: { type: 'string' }, help: { type: 'boolean' } }, USAGE);
 *          if (typeof values === 'number') return values;
 */
export function parseCommandLine<T extends ParseArgsOptionsConfig>(args: string[], options: T, usage: string): CommandLineValues<T> | number {
  let values: CommandLineValues<T>;
  try {
    ({ values } = parseArgs({ args, options, allowPositionals: false }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if ((values as { help?: boolean }).help) {
    console.log(usage);
    return 0;
  }
  return values;
}
