/**
 * What the scripted server does beyond chat completions for context-window tests: it counts each chat
 * request's prompt as a server with a fixed window would (and refuses one over it, in llama.cpp's words),
 * and it answers the metadata routes local servers have next to their OpenAI-compatible API — Ollama's
 * `/api/ps` and `/api/show`, llama.cpp's `/props`, LM Studio's `/api/v0/models`. Only `node:` imports.
 */
import type { ScriptedHttpError, ScriptedNative, ScriptedWindow } from './scripted-types.ts'

/**
 * The server's own token count of a chat request: its tool definitions and messages as JSON, at
 * `charsPerToken` (default 4). JSON's keys and escapes make it count more than an estimate of the text.
 */
export function countPromptTokens(body: Record<string, unknown>, window: ScriptedWindow): number {
  const chars = JSON.stringify([body.tools ?? [], body.messages ?? []]).length
  return Math.ceil(chars / (window.charsPerToken ?? 4))
}

/** llama.cpp's answer to a prompt over its window (as `exceed_context_size_error`). */
export function overWindowError(tokens: number, window: ScriptedWindow): ScriptedHttpError {
  const message = `request (${tokens} tokens) exceeds the available context size (${window.tokens} tokens), try increasing it`
  return {
    status: 400,
    body: {
      error: {
        code: 400,
        message,
        type: 'exceed_context_size_error',
        n_prompt_tokens: tokens,
        n_ctx: window.tokens,
      },
    },
  }
}

/**
 * The answer to a native metadata route, or undefined when the server was not given one (then it
 * answers 404, as a server of another kind would). `body` is the parsed JSON body of a POST.
 */
export function nativeAnswer(
  native: ScriptedNative | undefined,
  method: string,
  path: string,
  body: unknown,
): unknown | undefined {
  if (!native) return undefined
  if (method === 'GET' && path === '/props') return native.props
  if (method === 'GET' && path === '/api/ps') return native.ollamaPs
  if (method === 'GET' && path === '/api/v0/models') return native.lmStudioModels
  if (method === 'POST' && path === '/api/show' && native.ollamaShow) {
    const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
    const model = typeof record.model === 'string' ? record.model : String(record.name ?? '')
    return native.ollamaShow(model)
  }
  return undefined
}
