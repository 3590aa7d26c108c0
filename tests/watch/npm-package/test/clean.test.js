// The clean test: spawns a child, kills it and awaits its exit. Leaves nothing.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { spawn } = require('node:child_process');
const { once } = require('node:events');

test('kills its child and awaits its exit', async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300_000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  const exited = once(child, 'exit');
  assert.ok(child.kill('SIGKILL'));
  const [code, signal] = await exited;
  assert.strictEqual(code, null);
  assert.strictEqual(signal, 'SIGKILL');
});
