/** Polls `cond` every 5 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function waitFor(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Reads a stream to its end as UTF-8. */
export async function text(body: AsyncIterable<unknown>): Promise<string> {
  let out = '';
  for await (const c of body) out += (c as Buffer).toString('utf8');
  return out;
}

/** Resolves with the first chunk of `body` as UTF-8, leaving the rest unread. */
export function firstChunk(body: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    body.once('data', (c: Buffer) => {
      body.pause();
      resolve(c.toString('utf8'));
    });
    body.once('error', reject);
  });
}
