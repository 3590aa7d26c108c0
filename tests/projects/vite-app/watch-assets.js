// An asset watcher started beside Vite with setsid, as some dev scripts do so that a Ctrl-C in
// the terminal leaves it be: it watches src/ and serves change notices on 35730.
const fs = require('fs');
const http = require('http');
const path = require('path');

fs.watch(path.join(__dirname, 'src'), () => {});
http.createServer((req, res) => res.end('assets\n')).listen(35730, '127.0.0.1');
