import type { NodeFetch } from './node-fetch.js'
import { SseParser } from './sse-parser.js'

function hasErrorField(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'error' in value
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json\b/i

/**
 * Reads a chat-completions response body: the JSON of each server-sent `data:` event goes to `onChunk`
 * as it arrives, until `[DONE]` (what follows it is drained unread) or the end of the body. An `error`
 * event is handed on as `{error}` (unless it is already), the shape the assembler raises. A body sent as
 * plain JSON, by a server or proxy that ignored `stream: true`, is one whole completion. Malformed JSON
 * throws a SyntaxError; what `onChunk` throws propagates. Resolves true when the body said it was
 * complete (`[DONE]`, or a whole JSON completion), false when the event stream just ended.
 */
export async function readChunks(
  fetch: NodeFetch,
  response: Response,
  onChunk: (chunk: unknown) => void,
): Promise<boolean> {
  if (JSON_TYPE.test(response.headers.get('content-type') ?? '')) {
    let text = ''
    await fetch.readText(response, (part) => {
      text += part
    })
    if (text.trim() !== '') onChunk(JSON.parse(text))
    return true
  }
  let done = false
  const parser = new SseParser(({ event, data }) => {
    if (done) return
    if (data === '[DONE]') {
      done = true
      return
    }
    const parsed: unknown = JSON.parse(data)
    onChunk(event === 'error' && !hasErrorField(parsed) ? { error: parsed } : parsed)
  })
  await fetch.readText(response, (text) => parser.feed(text))
  parser.end()
  return done
}
