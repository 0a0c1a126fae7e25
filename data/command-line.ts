/**
 * @module The command lines of every npm script (`data:*`, `dev`, `accounts`, `deploy`, `bench*`): parsed by
 * `node:util`'s `parseArgs`. `--help` (or `-h`) prints the usage and exits 0; a malformed line prints one
 * line naming what is wrong and pointing at `--help`, and exits 2, never a stack trace.
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

/** The option every command line has. */
const HELP = { help: { type: 'boolean', short: 'h' } } as const;

type WithHelp<T extends ParseArgsOptionsConfig> = T & typeof HELP;

/** The options parsed from a command line of `options`. */
type CommandLineValues<T extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: WithHelp<T>; allowPositionals: true }>
>['values'];

/** Where a command line's messages go: standard output and standard error unless a test says otherwise. */
export interface CommandLineOutput {
  out(line: string): void;
  err(line: string): void;
}

const CONSOLE: CommandLineOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** What a command accepts. */
export interface CommandLineSpec<T extends ParseArgsOptionsConfig> {
  /** How a user runs it, as messages name it: `npm run data:build`. */
  readonly command: string;
  /** What `--help` prints: the synopsis, then each option. */
  readonly usage: string;
  /** The options besides `--help`, as `parseArgs` takes them. */
  readonly options: T;
  /** Whether words that are not options are accepted (a subcommand and its arguments); not by default. */
  readonly positionals?: boolean;
}

/** A parsed command line. */
export interface CommandLine<T extends ParseArgsOptionsConfig> {
  readonly values: CommandLineValues<T>;
  /** The words that are not options, in order (always empty unless the spec accepts them). */
  readonly positionals: string[];
}

/**
 * The command line `args` read by `spec`, or the exit code when the line is already answered: 0 after
 * printing the usage for `--help`, 2 after printing one line for a malformed line (an unknown option, a
 * missing value, a value given to a switch, an unexpected word).
 *
 * @example
 *   const line = parseCommandLine(process.argv.slice(2), { command: 'npm run data:build', usage: USAGE, options: { out: { type: 'string' } } });
 *   if (typeof line === 'number') return line;
 */
export function parseCommandLine<T extends ParseArgsOptionsConfig>(
  args: string[],
  spec: CommandLineSpec<T>,
  output: CommandLineOutput = CONSOLE,
): CommandLine<T> | number {
  let parsed: CommandLine<T>;
  try {
    const options: WithHelp<T> = { ...spec.options, ...HELP };
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    return commandLineError(spec.command, problemOf(error), output);
  }
  if ((parsed.values as { help?: boolean }).help) {
    output.out(spec.usage);
    return 0;
  }
  const [word] = parsed.positionals;
  if (!spec.positionals && word !== undefined) return commandLineError(spec.command, `unexpected argument '${word}'`, output);
  return parsed;
}

/**
 * Prints what is wrong with a command line, in one line that points at `--help`, and gives its exit code.
 *
 * @example return commandLineError('npm run data:update', '--timeout must be a positive number of seconds');
 *          // npm run data:update: --timeout must be a positive number of seconds (see npm run data:update -- --help)
 */
export function commandLineError(command: string, problem: string, output: CommandLineOutput = CONSOLE): 2 {
  output.err(`${command}: ${problem} (see ${command} -- --help)`);
  return 2;
}

/** `parseArgs`'s error as a short phrase: its messages run on with advice that does not apply to npm scripts. */
function problemOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'([^']+)'/.exec(message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${option}'`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return / does not take an argument/.test(message) ? `option '${option}' takes no value` : `option '${option.replace(/ <value>$/, '')}' needs a value`;
    default:
      return message.split('. ')[0] ?? message;
  }
}
