// The live-reload watcher: holds its own port and watches the folder.
const fs = require('fs');
const http = require('http');

fs.watch(__dirname, () => {});
http.createServer((req, res) => res.end('reload\n')).listen(35729, 'localhost');
