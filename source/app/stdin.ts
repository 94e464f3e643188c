/** Reads piped stdin completely (bounded to 10 MB so a runaway pipe cannot exhaust memory). */
export async function readStdin(stream: NodeJS.ReadableStream, limit = 10 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    size += buf.length
    if (size > limit) throw new Error(`stdin is larger than ${limit / 1024 / 1024} MB`)
    chunks.push(buf)
  }
  return Buffer.concat(chunks).toString('utf8').trim()
}
