// A minimal OpenAI-compatible streaming endpoint on 127.0.0.1 for the TUI benchmarks. Unlike the test
// server it records when each response finished sending (the 'finish' event: every byte handed to the
// kernel) and paces chunks on an absolute schedule, so a 200 tokens/s stream does not drift.
import { createServer } from 'node:http'
import { performance } from 'node:perf_hooks'
import { buildStreamChunks } from '../../test/support/scripted-chunks.ts'

/**
 * `reply(index, body)` returns a ScriptedCompletion (text, toolCalls, chunkSize…) plus `chunkDelayMs`
 * (0 = one write). `onRequest(record)` runs when a chat request arrives, before anything is sent.
 */
export async function startStreamServer({ reply, onRequest }) {
  const requests = []
  /** Arrival times (performance.now()) of GET /models: the CLI lists the models before its first frame. */
  const listings = []
  const waiters = new Set()
  const server = createServer((req, res) => {
    // When the request's headers arrived, as the headless row's scripted server times it.
    const arrivedAt = performance.now()
    const parts = []
    req.on('data', (part) => parts.push(part))
    req.on('end', () => {
      const route = (req.url ?? '/').split('?')[0].replace(/^\/v1(?=\/)/, '')
      if (req.method === 'GET' && route === '/models') {
        listings.push(performance.now())
        for (const waiter of waiters) waiter()
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            object: 'list',
            data: [{ id: 'test-model', object: 'model', owned_by: 'bench' }],
          }),
        )
        return
      }
      if (req.method !== 'POST' || route !== '/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' })
        res.end('{"error":{"message":"no route"}}')
        return
      }
      let body = {}
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'))
      } catch {
        // answer anyway
      }
      const record = {
        index: requests.length,
        body,
        arrivedAt,
        receivedAt: performance.now(),
        finishedAt: null,
      }
      requests.push(record)
      onRequest?.(record)
      for (const waiter of waiters) waiter()
      const completion = reply(record.index, body)
      const chunks = buildStreamChunks(completion, {
        id: `chatcmpl-bench-${record.index}`,
        model: 'test-model',
        requestChars: Buffer.concat(parts).length,
        includeUsage: body.stream_options?.include_usage === true,
        callIdPrefix: `call_b${record.index}`,
      }).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
      chunks.push('data: [DONE]\n\n')
      res.on('finish', () => {
        record.finishedAt = performance.now()
        for (const waiter of waiters) waiter()
      })
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
      const pace = completion.chunkDelayMs ?? 0
      if (pace <= 0) {
        res.end(chunks.join(''))
        return
      }
      res.flushHeaders()
      const startedAt = performance.now()
      let sent = 0
      const tick = () => {
        if (res.destroyed) return
        // Send every chunk whose slot has come (catches up after a late timer instead of drifting).
        const due = Math.min(chunks.length, Math.floor((performance.now() - startedAt) / pace) + 1)
        if (due > sent) {
          res.write(chunks.slice(sent, due).join(''))
          sent = due
        }
        if (sent >= chunks.length) res.end()
        else setTimeout(tick, Math.max(0, startedAt + sent * pace - performance.now()))
      }
      tick()
    })
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address()
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    listings,
    /** Resolves once `test(requests)` holds, checked on every arrival, finish and listing; rejects after timeoutMs. */
    until(test, timeoutMs = 10_000, what = 'the endpoint') {
      return new Promise((resolve, reject) => {
        const waiter = () => {
          if (!test(requests)) return
          waiters.delete(waiter)
          clearTimeout(timer)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(
            new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${requests.length} requests)`),
          )
        }, timeoutMs)
        waiters.add(waiter)
        waiter()
      })
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}
