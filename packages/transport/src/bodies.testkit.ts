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
