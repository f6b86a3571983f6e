// A hook's JSON on stdin, read with a time limit: a stdin that never closes
// cannot hang the agent that runs the hook.

/** Reads stdin (at most 1 MiB kept); gives up after timeoutMs. */
export function readHookStdin(timeoutMs = 3000): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      process.stdin.removeAllListeners();
      process.stdin.pause();
      process.stdin.unref?.();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, timeoutMs);
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1024 * 1024) chunks.push(c);
    });
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}
