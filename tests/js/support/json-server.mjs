// A loopback HTTP server for the SDK round trips: it records each request's
// path and JSON body and answers with the reply its `replyFor(path)` gives
// (404 when none).
import { createServer } from "node:http";

export async function startJsonServer(replyFor) {
  const received = [];
  const server = createServer((request, response) => {
    // Bytes first: a character split across two chunks must not be decoded
    // half by half.
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ path: request.url, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      const reply = replyFor(request.url);
      response.writeHead(reply ? 200 : 404, { "content-type": "application/json" });
      response.end(JSON.stringify(reply ?? { error: { message: `no route ${request.url}` } }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    received,
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
