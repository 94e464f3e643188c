import { describe, expect, it } from 'vitest'
import { ProviderError } from '../../../source/provider/types.js'
import { rawProviders, chatRequest } from './harness.ts'

// Body shapes real servers send that the scripted server does not: a whole JSON completion for a
// streamed request, SSE error events, CR line ends.

const providerFor = rawProviders()
const request = () => chatRequest({ model: 'm' })

describe('OpenAI provider: body shapes', () => {
  it('takes a whole JSON completion from a server that ignored stream: true, tool calls included', async () => {
    const provider = await providerFor((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          choices: [
            {
              index: 0,
              finish_reason: 'tool_calls',
              message: {
                content: 'Reading it.',
                tool_calls: [
                  { id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"p":1}' } },
                ],
              },
            },
          ],
          usage: { prompt_tokens: 12, completion_tokens: 3 },
        }),
      )
    })
    const text: string[] = []
    const step = await provider.stream(request(), { onText: (d) => text.push(d) })
    expect(text.join('')).toBe('Reading it.')
    expect(step.toolCalls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"p":1}' } },
    ])
    expect(step.finishReason).toBe('tool_calls')
    expect(step.usage).toMatchObject({ input: 12, output: 3 })
  })

  it('takes a whole JSON completion without a finish_reason as complete', async () => {
    const provider = await providerFor((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ choices: [{ index: 0, message: { content: 'All of it.' } }] }))
    })
    const step = await provider.stream(request(), {})
    expect(step).toMatchObject({ text: 'All of it.', finishReason: 'unknown' })
  })

  it('keeps a reply whose connection drops after its finish_reason (only the usage is missing)', async () => {
    let requests = 0
    const provider = await providerFor((_req, _body, res) => {
      requests++
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"choices":[{"index":0,"delta":{"content":"Done."},"finish_reason":"stop"}]}\n\n')
      // The socket goes before the body's end (no [DONE], no final chunk of the chunked encoding).
      setImmediate(() => res.socket?.destroy())
    })
    const step = await provider.stream(request(), {})
    expect(step).toMatchObject({ text: 'Done.', finishReason: 'stop' })
    expect(requests).toBe(1)
  })

  it('retries a connection that drops mid-reply, before any finish_reason', async () => {
    let requests = 0
    const provider = await providerFor((_req, _body, res) => {
      requests++
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      if (requests === 1) {
        res.write('data: {"choices":[{"index":0,"delta":{"content":"Half"}}]}\n\n')
        setImmediate(() => res.socket?.destroy())
        return
      }
      res.end('data: {"choices":[{"index":0,"delta":{"content":"Whole."},"finish_reason":"stop"}]}\n\n')
    })
    const retries: boolean[] = []
    const step = await provider.stream(request(), { onRetry: (i) => retries.push(i.discarded) })
    expect(step).toMatchObject({ text: 'Whole.', finishReason: 'stop' })
    expect(retries).toEqual([true])
    expect(requests).toBe(2)
  })

  it('surfaces an SSE error event after content as the error it describes', async () => {
    const provider = await providerFor((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n')
      res.end('event: error\ndata: {"message":"upstream overloaded","code":503}\n\n')
    })
    const failure = await provider.stream(request(), {}).catch((err: unknown) => err)
    expect(failure).toBeInstanceOf(ProviderError)
    expect(failure).toMatchObject({ kind: 'server', status: 503 })
    expect((failure as Error).message).toContain('upstream overloaded')
  })

  it('reads a stream whose lines end in CR alone', async () => {
    const provider = await providerFor((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(
        'data: {"choices":[{"index":0,"delta":{"content":"one "}}]}\r\r' +
          'data: {"choices":[{"index":0,"delta":{"content":"two"},"finish_reason":"stop"}]}\r\rdata: [DONE]\r\r',
      )
    })
    const text: string[] = []
    const step = await provider.stream(request(), { onText: (d) => text.push(d) })
    expect(text.join('')).toBe('one two')
    expect(step.finishReason).toBe('stop')
  })
})
