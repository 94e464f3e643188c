import { createServer } from 'node:net'
import { afterEach } from 'vitest'
import { createOpenAIProvider, type OpenAIProviderOptions } from '../../../source/provider/client.js'
import type { ChatProvider, ChatRequest, RetryInfo, StreamHandlers } from '../../../source/provider/types.js'
import { type RawHandler, rawServers } from '../../support/raw-http-server.ts'
import {
  type ReplySource,
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from '../../support/scripted-server.ts'

/**
 * The provider client's tests share one harness: the real client over real HTTP against the scripted
 * server (or a raw server for body shapes it does not send), fast retries, one request shape, and a
 * recorder of the stream's callbacks. Servers close after each test.
 */

/** Fast retries: the tests wait on what happens, not on backoff. */
const FAST = { baseDelayMs: 1 }

/** Returns `setup(replies, clientOptions?, serverOptions?)`: a scripted server and a client of it. */
export function scriptedProviders() {
  const open: ScriptedServer[] = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()))
  })
  return async (
    replies: ReplySource[],
    opts: Partial<OpenAIProviderOptions> = {},
    serverOpts: ScriptedServerOptions = {},
  ) => {
    const server = await startScriptedServer({ replies, ...serverOpts })
    open.push(server)
    const provider = createOpenAIProvider({ baseUrl: server.baseUrl, ...FAST, ...opts })
    return { server, provider }
  }
}

/** Returns `providerFor(handler)`: a client of a raw HTTP server that answers with `handler`. */
export function rawProviders(opts: Partial<OpenAIProviderOptions> = { maxAttempts: 2 }) {
  const serve = rawServers()
  return async (handler: RawHandler): Promise<ChatProvider> => {
    const server = await serve(handler)
    return createOpenAIProvider({ baseUrl: `${server.url}/v1`, ...FAST, ...opts })
  }
}

/** A client of an endpoint where nothing listens (a port bound once, then released), and its URL. */
export async function deadEndpoint(
  opts: Partial<OpenAIProviderOptions> = {},
): Promise<{ url: string; provider: ChatProvider }> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  const url = `http://127.0.0.1:${address.port}/v1`
  return { url, provider: createOpenAIProvider({ baseUrl: url, ...opts }) }
}

export function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'test-model',
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    toolChoice: 'auto',
    signal: new AbortController().signal,
    ...overrides,
  }
}

/** Handlers that record every callback. */
export function recorder() {
  const log = {
    text: [] as string[],
    reasoning: [] as string[],
    starts: [] as string[],
    retries: [] as RetryInfo[],
  }
  const handlers: StreamHandlers = {
    onText: (d) => log.text.push(d),
    onReasoning: (d) => log.reasoning.push(d),
    onToolCallStart: (c) => log.starts.push(`${c.index}:${c.id}:${c.name}`),
    onRetry: (i) => log.retries.push(i),
  }
  return { log, handlers }
}
