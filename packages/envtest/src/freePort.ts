import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (bound with port 0,
 * then released).
 *
 * Easy to get wrong: another process may take it before ours binds it, so
 * callers retry the process start on "address already in use".
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('listen(0) returned no port'))));
    });
  });
}
