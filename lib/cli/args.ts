// Reading a command line the way every svc-facade command does: `--flag value` or `--flag=value`.
import { Errors, svcError } from '../util/errors.js';

/**
 * Calls `visit` with each argument (an option's flag without its `=value`, or an operand as given) and a
 * reader of the option's value: the text after `=`, else the next argument, which it consumes. Stops at the
 * first `visit` that returns something (`'help'`, say) and returns that.
 */
export function walkArgs<R>(argv: readonly string[], visit: (flag: string, value: () => string) => R | undefined): R | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const [flag, inline] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw svcError(Errors.CLI_USAGE, `option ${flag} needs a value`);
      return v;
    };
    const stop = visit(flag, value);
    if (stop !== undefined) return stop;
  }
  return undefined;
}
