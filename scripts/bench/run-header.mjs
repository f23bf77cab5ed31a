// The first lines of a bench run: the command that produced it and the machine it ran on, so every figure
// quoted from the output (docs/performance.md) can say how to get it again.
import { spawnSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { relative } from 'node:path';

/** An argument as a POSIX shell reads it back: plain when it is safe, else in single quotes. */
const shellWord = (arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);

/** The commit checked out in `root`, with "+ changes" when tracked files differ from it; undefined outside git. */
function commit(root) {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  if (head.status !== 0) return undefined;
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' }).stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? ' + uncommitted changes' : ''}`;
}

export function printRunHeader(root) {
  const [, script, ...args] = process.argv;
  const node = ['node', ...process.execArgv, relative(process.cwd(), script) || script, ...args].map(shellWord).join(' ');
  const via = process.env.npm_lifecycle_event ? ` (via npm run ${process.env.npm_lifecycle_event})` : '';
  const options = process.env.NODE_OPTIONS ? `, NODE_OPTIONS=${shellWord(process.env.NODE_OPTIONS)}` : '';
  const at = commit(root);
  console.log(`command: ${node}${via}`);
  console.log(`  node ${process.version}${options}, ${new Date().toISOString()}, nproc ${availableParallelism()} (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (1, 5, 15 min)${at ? `, commit ${at}` : ''}`);
}
