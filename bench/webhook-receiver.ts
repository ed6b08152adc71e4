/**
 * The bench's webhook receiver: a bare node:http server answering 200 to every delivery, in its
 * own process, so a server measured with one endpoint pays for sending deliveries but not for
 * receiving them. Prints `... listening on URL` like the servers, and on SIGTERM the number of
 * deliveries it got (so the bench can tell deliveries really went out); a GET answers that number
 * as `{"received": n}` while it runs.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
const server = createServer((request, response) => {
  // GET: how many deliveries came so far (the bench waits for all of them).
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received }));
    return;
  }
  request.resume();
  request.on('end', () => {
    received += 1;
    response.writeHead(200, { 'content-length': '0' }).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`webhook receiver listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
});
process.once('SIGTERM', () => {
  console.log(`webhook receiver got ${received} deliveries`);
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
