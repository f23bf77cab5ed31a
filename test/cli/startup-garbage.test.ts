// The CLI's one garbage collection after it listens (lib/cli/startup-garbage.ts): what it leaves behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';
import { collectStartupGarbage } from '../../lib/cli/startup-garbage.js';

test('collectStartupGarbage: a full collection on its timer (an unreachable object is gone), and gc() stays unexposed', async () => {
  let garbage: object | undefined = { text: 'x'.repeat(1 << 20) };
  const ref = new WeakRef(garbage);
  garbage = undefined;
  collectStartupGarbage(0);
  // A WeakRef's target survives until the current job ends, and scavenges treat it as strong: only a full
  // collection clears it.
  await sleep(50);
  assert.equal(ref.deref(), undefined, 'collected');
  assert.equal(runInNewContext('typeof gc'), 'undefined', '--expose-gc is unset again, for contexts made later too');
  assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
});
