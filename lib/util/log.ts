// The facade's logger: plain lines to stdout/stderr by default, replaceable by embedders and tests.
// `svc.observe.logFormat=json` turns every line into one JSON object (time, level, msg and the fields).

/** Context of a log line (request id, access-log values); never tokens, cookies or bodies. */
export type LogFields = Readonly<Record<string, string | number | undefined>>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogFormat = 'text' | 'json';

type Level = 'info' | 'warn' | 'error';
type Write = (line: string) => void;

const stdout: Write = (line) => void process.stdout.write(line);
const stderr: Write = (line) => void process.stderr.write(line);

/** `WARN message key=value ...`; info lines carry no level word, as the startup listing always did. */
function textLine(level: Level, message: string, fields: LogFields | undefined): string {
  let line = level === 'info' ? message : `${level.toUpperCase()} ${message}`;
  if (fields !== undefined) for (const key in fields) if (fields[key] !== undefined) line += ` ${key}=${fields[key]}`;
  return `${line}\n`;
}

function jsonLine(level: Level, message: string, fields: LogFields | undefined): string {
  return `${JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...fields })}\n`;
}

/** A logger writing `format` lines: info to `out`, warnings and errors to `err`. */
export function createLogger(format: LogFormat = 'text', out: Write = stdout, err: Write = stderr): Logger {
  const line = format === 'json' ? jsonLine : textLine;
  return {
    info: (m, f) => out(line('info', m, f)),
    warn: (m, f) => err(line('warn', m, f)),
    error: (m, f) => err(line('error', m, f)),
  };
}

export const consoleLogger: Logger = createLogger('text');

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
