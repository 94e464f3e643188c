import OpenAI, { APIError } from 'openai'
import { modelNotFoundError, toProviderError } from './errors.js'
import { createNodeFetch } from './node-fetch.js'
import { idleWatchdog } from './idle-watchdog.js'
import { readChunks } from './read-chunks.js'
import { buildChatBody, parseModelList } from './request-body.js'
import {
  DEFAULT_RETRY_POLICY,
  isRetryableError,
  parseRetryAfter,
  type RetryPolicy,
  RetryableFailure,
  withRetry,
} from './retry.js'
import { type AssemblerHandlers, StreamAssembler } from './stream-assembler.js'
import { quotedIn, type TextToolIndex } from './text-tool-calls.js'
import {
  type ChatProvider,
  type ChatRequest,
  type ModelInfo,
  ProviderError,
  type StepResponse,
  type StreamHandlers,
} from './types.js'

export interface OpenAIProviderOptions {
  /** OpenAI-compatible base URL, usually ending in /v1. */
  baseUrl: string
  /** Sent as a bearer token; local servers need none. */
  apiKey?: string
  /**
   * Extra headers on every request (gateways, corporate proxies, OpenRouter attribution): the endpoint's
   * origin only, dropped when a redirect leaves it.
   */
  headers?: Record<string, string>
  /** An attempt that receives nothing (headers or chunks) for this long is aborted and retried. Default 60000. */
  idleTimeoutMs?: number
  /** Total attempts per step, including the first. Default 5. */
  maxAttempts?: number
  /** Backoff base between attempts. Default 1000. */
  baseDelayMs?: number
  /** Longest Retry-After honoured; a server asking for more ends the retries. Default 300000. */
  maxRetryAfterMs?: number
}

/** Wraps an exception thrown by a caller's handler, so it is rethrown as is instead of read as a network fault. */
class HandlerFailure extends Error {
  constructor(cause: unknown) {
    super('stream handler threw', { cause })
    this.name = 'HandlerFailure'
  }
}

function guard(handlers: StreamHandlers): AssemblerHandlers {
  const wrap =
    <A>(fn: ((arg: A) => void) | undefined) =>
    (arg: A) => {
      if (fn === undefined) return
      try {
        fn.call(handlers, arg)
      } catch (err) {
        throw new HandlerFailure(err)
      }
    }
  return {
    onText: wrap(handlers.onText),
    onReasoning: wrap(handlers.onReasoning),
    onToolCallStart: wrap(handlers.onToolCallStart),
  }
}

/** The request's tools, for reading calls written as text: only these names become calls. */
function textToolIndex(req: ChatRequest, bareJson: boolean): TextToolIndex {
  const byName = new Map(req.tools.map((t) => [t.function.name, t.function.parameters]))
  return {
    bareJson,
    known: (name) => byName.has(name),
    quoted: (markup) => quotedIn(req.messages, markup),
    properties: (name) => {
      const props = byName.get(name)?.properties
      return typeof props === 'object' && props !== null ? (props as Record<string, unknown>) : undefined
    },
  }
}

function emptyAborted(): StepResponse {
  return { text: '', reasoning: '', toolCalls: [], finishReason: 'aborted', usage: null, aborted: true }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`
}

function cutOff(url: string, delivered: boolean): ProviderError {
  const when = delivered ? 'mid-reply' : 'before sending any content'
  return new ProviderError('network', `${url} closed the stream ${when} (no finish_reason and no [DONE])`, {
    url,
  })
}

function retryAfterOf(err: ProviderError): number | undefined {
  return err.cause instanceof APIError ? parseRetryAfter(err.cause.headers) : undefined
}

/**
 * A ChatProvider over the `openai` SDK against any OpenAI-compatible endpoint. The SDK's own retries are
 * off; ours (retry.ts) cover 408/409/429/5xx, connection faults, idle timeouts, corrupt streams and
 * streams cut off before their end, also mid-reply: the retry then says the output so far is void.
 * `onRetry` gets `attempt` = the number of the attempt about to start (2 = first retry).
 */
export function createOpenAIProvider(opts: OpenAIProviderOptions): ChatProvider {
  const url = opts.baseUrl.replace(/\/+$/, '')
  const idleTimeoutMs = opts.idleTimeoutMs ?? 60_000
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    maxAttempts: Math.max(1, opts.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts),
    baseDelayMs: opts.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxRetryAfterMs: opts.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
  }
  const fetch = createNodeFetch({ originOnlyHeaders: Object.keys(opts.headers ?? {}) })
  // The SDK asks for web streams on every request: loaded here, with the provider (after the first
  // frame in the TUI), rather than in the first turn (~5 ms of CPU).
  void globalThis.ReadableStream
  const client = new OpenAI({
    baseURL: url,
    apiKey: opts.apiKey ?? 'not-needed',
    maxRetries: 0,
    fetch,
    // The SDK would print malformed-chunk diagnostics to the console, under the full-screen UI.
    logLevel: 'off',
    ...(opts.headers !== undefined ? { defaultHeaders: opts.headers } : {}),
  })

  const listModels = async (signal?: AbortSignal): Promise<ModelInfo[]> => {
    try {
      const body = await client.get<unknown>('/models', signal !== undefined ? { signal } : {})
      return parseModelList(body)
    } catch (err) {
      throw toProviderError(err, { url })
    }
  }

  /** For a missing model, the endpoint's own list is the most useful thing to show. */
  const explain = async (err: ProviderError, model: string, signal: AbortSignal): Promise<ProviderError> => {
    if (err.kind !== 'not_found' && err.kind !== 'model_not_found') return err
    try {
      const ids = (await listModels(signal)).map((m) => m.id)
      return ids.includes(model) ? err : modelNotFoundError(model, url, ids, err)
    } catch {
      return err
    }
  }

  const attempt = async (req: ChatRequest, handlers: AssemblerHandlers): Promise<StepResponse> => {
    const assembler = new StreamAssembler({
      url,
      handlers,
      ...(req.textToolCalls ? { textTools: textToolIndex(req, req.textToolCalls.bareJson) } : {}),
    })
    const watchdog = new AbortController()
    const signal = AbortSignal.any([req.signal, watchdog.signal])
    const idle = idleWatchdog(idleTimeoutMs, () => watchdog.abort())
    let opened = false
    let complete = false
    let failure: ProviderError | undefined
    try {
      // The SDK sends the request and raises HTTP errors; the body is read here, straight off the socket:
      // the SDK's own stream (four async layers per chunk) costs more CPU than drawing the reply.
      const response = await client.chat.completions.create(buildChatBody(req), { signal }).asResponse()
      opened = true
      idle.touch()
      complete = await readChunks(fetch, response, (chunk) => {
        idle.touch()
        assembler.push(chunk)
      })
    } catch (err) {
      if (err instanceof HandlerFailure) throw err
      if (!req.signal.aborted && !watchdog.signal.aborted) {
        failure = await explain(toProviderError(err, { url, model: req.model }), req.model, req.signal)
        // Lost after the finish_reason: the reply itself is whole (only a usage chunk may be missing).
        if (failure.kind === 'network' && assembler.finished) failure = undefined
      }
    } finally {
      idle.stop()
    }
    if (req.signal.aborted) return assembler.result({ aborted: true })
    if (watchdog.signal.aborted) {
      const what = assembler.delivered ? 'stalled' : 'sent nothing'
      failure = new ProviderError('timeout', `${url} ${what} for ${formatDuration(idleTimeoutMs)}`, { url })
    } else if (failure === undefined && !assembler.finished) {
      // A finish_reason or [DONE] closes a reply (servers send one, the other or both); a body that just
      // ends with neither was cut off, and what it carried is not the model's answer.
      if (!complete) failure = cutOff(url, assembler.delivered)
      else if (!assembler.delivered) {
        failure = new ProviderError('network', `${url} closed the stream before sending any content`, { url })
      }
    }
    if (failure === undefined) return assembler.result()
    // A corrupt stream (malformed chunk) is worth another try like a dropped one. Output the failed
    // attempt already showed is withdrawn by the caller (RetryInfo.discarded): nothing of it is kept.
    const retryable = isRetryableError(failure) || (opened && failure.kind === 'protocol')
    if (retryable) throw new RetryableFailure(failure, retryAfterOf(failure), assembler.delivered)
    throw failure
  }

  return {
    stream(req: ChatRequest, handlers: StreamHandlers): Promise<StepResponse> {
      const guarded = guard(handlers)
      const run = withRetry(() => attempt(req, guarded), {
        policy,
        signal: req.signal,
        onAborted: emptyAborted,
        ...(handlers.onRetry !== undefined ? { onRetry: (info) => handlers.onRetry?.(info) } : {}),
      })
      // A handler's own exception is the caller's bug: hand it back untouched, not as a provider fault.
      return run.catch((err: unknown) => {
        throw err instanceof HandlerFailure ? err.cause : err
      })
    },
    listModels,
  }
}
