// A dev server: serves on 4173 and starts a live-reload watcher that outlives it, because it is
// spawned detached (its own session) and unref'd, as watchers often are.
const http = require('http');
const path = require('path');
const { spawn } = require('child_process');

const watcher = spawn(process.execPath, [path.join(__dirname, 'watcher.js')], {
  detached: true,
  stdio: 'ignore',
});
watcher.unref();

http.createServer((req, res) => res.end('hello\n')).listen(4173, '127.0.0.1', () => {
  console.log('dev server ready on http://127.0.0.1:4173');
});
