// The facade's logger: plain lines to stdout/stderr by default, replaceable by embedders and tests.
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const consoleLogger: Logger = {
  info: (m) => process.stdout.write(`${m}\n`),
  warn: (m) => process.stderr.write(`WARN ${m}\n`),
  error: (m) => process.stderr.write(`ERROR ${m}\n`),
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
