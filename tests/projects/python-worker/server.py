"""A small web app: serves on 8000 and starts a background worker as a daemon (double fork and
setsid), the way job runners and schedulers do. No reapcheck code in it."""
import http.server

import worker

worker.start_daemon()
server = http.server.HTTPServer(("127.0.0.1", 8000), http.server.SimpleHTTPRequestHandler)
print("serving on 8000", flush=True)
server.serve_forever()
