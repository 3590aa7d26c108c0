// Leaves a server: spawns fixtures/server.js detached (a session of its own), stdio 'ignore',
// waits until it listens and answers, then unref()s it and returns. The test passes; the server
// goes on listening on its port, orphaned, until it exits by itself after 300 s.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test('starts a detached server and leaves it running', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reapcheck-watch-npm-'));
  const portFile = path.join(dir, 'port');
  const server = spawn(process.execPath, [path.join(__dirname, '..', 'fixtures', 'server.js'), portFile], {
    detached: true,
    stdio: 'ignore',
  });
  let port;
  try {
    for (let i = 0; i < 200 && port === undefined; i++) {
      if (fs.existsSync(portFile)) port = Number(fs.readFileSync(portFile, 'utf8'));
      else await sleep(25);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
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
