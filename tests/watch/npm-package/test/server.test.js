// Leaves a server: spawns fixtures/server.js detached (a session of its own), with no stdio of
// the test's, reads the port it listens on from a pipe the server closes once it has written it,
// checks that it answers, then unref()s it and returns. The test passes; the server goes on
// listening on its port, orphaned, until it exits by itself after 300 s.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');

// Everything `stream` carries, once its writer has closed it.
const readAll = (stream) =>
  new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk) => { text += chunk; });
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });

test('starts a detached server and leaves it running', async () => {
  const server = spawn(process.execPath, [path.join(__dirname, '..', 'fixtures', 'server.js')], {
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  const port = Number(await readAll(server.stdio[3]));
  assert.ok(port > 0, 'the server told its port');
  const reply = await new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => { data += chunk; });
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
  assert.strictEqual(reply, 'reapcheck-watch\n');
  console.log(`server.test.js: left server pid ${server.pid} listening on 127.0.0.1:${port}`);
  server.unref(); // the test's process may exit; the server does not
});
