/** One dispatched server-sent event: its `event` field ('' when absent) and its joined `data` lines. */
export interface SseEvent {
  event: string
  data: string
}

/**
 * An incremental parser for a text/event-stream body (WHATWG HTML §9.2), fed text as it arrives in
 * chunks of any size. Lines end in CRLF, LF or CR; `data` lines join with LF; comments and the `id` and
 * `retry` fields are ignored (a chat stream is never resumed). An event is dispatched at its blank line;
 * at the end of the body an event still open is dispatched too, since some servers end the stream on
 * `data: [DONE]` without one. Synchronous: `onEvent` runs inside `feed`, and what it throws propagates.
 */
export class SseParser {
  #pending = ''
  /** A CR ended the previous chunk: a LF opening the next one belongs to it. */
  #afterCr = false
  #started = false
  #event = ''
  #data: string[] = []

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  feed(text: string): void {
    if (text === '') return
    let chunk = text
    if (!this.#started) {
      this.#started = true
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1)
    }
    if (this.#afterCr && chunk.charCodeAt(0) === 10) chunk = chunk.slice(1)
    this.#afterCr = false
    let start = 0
    // Each search resumes past the last line end, so a large chunk with many lines is scanned once.
    let lf = chunk.indexOf('\n')
    let cr = chunk.indexOf('\r')
    for (;;) {
      if (lf !== -1 && lf < start) lf = chunk.indexOf('\n', start)
      if (cr !== -1 && cr < start) cr = chunk.indexOf('\r', start)
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(lf, cr)
      if (end === -1) break
      const line = this.#pending === '' ? chunk.slice(start, end) : this.#pending + chunk.slice(start, end)
      this.#pending = ''
      start = end + 1
      if (end === cr) {
        if (start === chunk.length) this.#afterCr = true
        else if (chunk.charCodeAt(start) === 10) start++
      }
      this.#line(line)
    }
    this.#pending += chunk.slice(start)
  }

  /** The body ended: a last unterminated line counts, and an event still open is dispatched. */
  end(): void {
    if (this.#pending !== '') {
      const line = this.#pending
      this.#pending = ''
      this.#line(line)
    }
    this.#dispatch()
  }

  #line(line: string): void {
    if (line === '') {
      this.#dispatch()
      return
    }
    if (line.charCodeAt(0) === 58) return // ":" opens a comment (keep-alives)
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (field === 'data') this.#data.push(value)
    else if (field === 'event') this.#event = value
  }

  #dispatch(): void {
    if (this.#data.length === 0) {
      this.#event = ''
      return
    }
    const event = { event: this.#event, data: this.#data.join('\n') }
    this.#event = ''
    this.#data = []
    this.onEvent(event)
  }
}
