/** Types of the scripted OpenAI-compatible test server (see scripted-server.ts). */

export interface ScriptedToolCall {
  /** Call id on the wire. Omitted → the server invents a unique one; '' → no id is sent at all. */
  id?: string
  name: string
  /** Objects are JSON-encoded; strings are sent verbatim (so malformed arguments can be scripted). */
  arguments: string | Record<string, unknown>
}

export interface ScriptedUsage {
  prompt: number
  completion: number
  cached?: number
}

/** A successful completion, streamed as SSE chunks (or one JSON object for non-streaming requests). */
export interface ScriptedCompletion {
  text?: string
  reasoning?: string
  toolCalls?: ScriptedToolCall[]
  /** Default: a rough estimate (characters / 4) of the request and the reply. */
  usage?: ScriptedUsage
  /** Default: 'tool_calls' when toolCalls is non-empty, else 'stop'. null: no finish_reason is sent at all. */
  finishReason?: string | null
  /**
   * How tool-call fragments are cut: 'fine' (id+name first, args in small pieces — default), 'whole'
   * (all calls complete in one chunk), 'late-ids' (id/name only arrive in a later fragment),
   * 'repeated-ids' (id and name repeated on every fragment).
   */
  fragments?: 'fine' | 'whole' | 'late-ids' | 'repeated-ids'
  /** Text, reasoning and arguments are split into pieces of this many characters (default 8). */
  chunkSize?: number
  /** Delay between chunks in ms (default 0: everything is written at once). */
  chunkDelayMs?: number
  /** Stop sending after N chunks and end the response WITHOUT [DONE]. */
  cutAfterChunks?: number
  /** Send every chunk (finish_reason and usage included) but end the response without `data: [DONE]`. */
  noDone?: boolean
  /** Send no `usage` at all, as servers that ignore `stream_options.include_usage` do. */
  omitUsage?: boolean
  /** Answer a streaming request with one JSON `chat.completion`, as servers that ignore `stream: true` do. */
  ignoreStream?: boolean
  /** Stop sending after N chunks and keep the connection open until the client goes away. */
  hangAfterChunks?: number
  /** Insert a malformed SSE data line after N chunks (the stream then continues normally). */
  malformedAfterChunks?: number
  /** Send `data: {"error":{...}}` after N chunks, then end the response without [DONE]. */
  streamErrorAfterChunks?: number
  /**
   * Hold the response until at least N chat requests are open at once (this one included), so a test can
   * see that requests overlap; after `holdTimeoutMs` (default 10000) it answers anyway.
   */
  holdUntilInFlight?: number
  holdTimeoutMs?: number
}

/** An HTTP error reply. `body` defaults to an OpenAI-style `{error: {message, type, code}}` object. */
export interface ScriptedHttpError {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** Destroys the socket without sending a response. */
export interface ScriptedReset {
  reset: true
}

export type ScriptedReply = ScriptedCompletion | ScriptedHttpError | ScriptedReset

export interface RecordedRequest {
  /** Parsed JSON body: model, messages, tools, tool_choice, stream, stream_options… */
  body: Record<string, unknown>
  /** Lower-case header names; repeated headers joined with ', '. */
  headers: Record<string, string>
  path: string
  receivedAt: number
  /** `performance.now()` when the request's headers arrived, before its body was read. */
  arrivedAt: number
  /** `performance.now()` when the whole response was handed to the socket; null until then. */
  respondedAt: number | null
  /** The server's own count of the prompt's tokens, when it was given a `contextWindow`. */
  promptTokens?: number
}

export type ReplySource = ScriptedReply | ((req: RecordedRequest) => ScriptedReply)

export interface ScriptedModel {
  id: string
  context_length?: number
  /** vLLM's field for the window it serves the model with. */
  max_model_len?: number
  /** llama.cpp lists `meta.n_ctx_train`, what the model was trained for. */
  meta?: Record<string, unknown>
  /** Who serves it, as servers say (`llamacpp`, `library`…); default `scripted`. */
  owned_by?: string
}

/** A window the server counts every chat request against (scripted-window.ts). */
export interface ScriptedWindow {
  tokens: number
  /** Characters of the request's JSON per token (default 4). */
  charsPerToken?: number
}

/** Metadata routes of local servers, answered as given; a route left out answers 404. */
export interface ScriptedNative {
  /** llama.cpp's `GET /props`, e.g. `{default_generation_settings: {n_ctx: 8192}}`. */
  props?: unknown
  /** Ollama's `GET /api/ps`: the loaded models, e.g. `{models: [{name, model, context_length}]}`. */
  ollamaPs?: unknown
  /** Ollama's `POST /api/show` for a model (undefined: 404, as Ollama answers an unknown model). */
  ollamaShow?: (model: string) => unknown
  /** LM Studio's `GET /api/v0/models`. */
  lmStudioModels?: unknown
}

export interface ScriptedServerOptions {
  /**
   * Count every chat request's prompt (its tools and messages as JSON, scripted-window.ts) against this
   * window: the count is recorded on the request and reported as `usage.prompt_tokens`, and a request
   * over the window is refused with llama.cpp's overflow error instead of taking a reply.
   */
  contextWindow?: ScriptedWindow
  /** Native metadata routes (Ollama, llama.cpp, LM Studio), at the server's root beside `/v1`. */
  native?: ScriptedNative
  replies?: ReplySource[]
  /** Used when the queue is empty; without it the server answers "(script exhausted)". */
  fallback?: ReplySource
  /** Models listed by GET /v1/models (default: one model, `test-model`). */
  models?: ScriptedModel[]
  /** Answers to the first GET /v1/models requests, one each, before the list is served. */
  modelsFaults?: Array<ScriptedHttpError | ScriptedReset>
  /** Port on 127.0.0.1 (default: a random free port). */
  port?: number
}

export interface ScriptedServer {
  /** e.g. http://127.0.0.1:PORT/v1 */
  readonly baseUrl: string
  /** Chat-completion requests in arrival order. */
  readonly requests: RecordedRequest[]
  /** The headers of each GET /v1/models, in arrival order (lower-case names). */
  readonly modelListings: Array<Record<string, string>>
  /**
   * One message per request whose history broke the tool_calls ↔ tool pairing rule, or held what a strict
   * server refuses (arguments that are not exactly the JSON of an object, a lone surrogate).
   */
  readonly pairingViolations: string[]
  /** Chat requests that arrived after the script was exhausted (and no fallback was given). */
  readonly unexpectedRequests: number
  /** Chat requests over the `contextWindow` (refused with an overflow error). */
  readonly overWindow: number
  /** The most chat requests that were open (received, not yet fully answered) at the same time. */
  readonly maxInFlight: number
  enqueue(...replies: ReplySource[]): void
  /** Resolves once at least `n` chat requests arrived; rejects after `timeoutMs` (default 10000). */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>
  /** Stops listening and destroys open connections (including hanging streams). */
  close(): Promise<void>
}
