import type { ContextWarning } from '../../store/domain.js'
import type { Budget } from './budget.js'
import type { ContextReport } from './types.js'

/** The tool definitions may take this share of the window before agent-tui says so at start. */
export const DEFINITIONS_SHARE = 1 / 3

const SOURCES: Record<ContextReport['limitSource'], string> = {
  profile: 'the model profile',
  endpoint: "the endpoint's model listing",
  settings: 'settings',
  'endpoint error': "the endpoint's overflow error",
}

/** Where the window's size comes from, in words: `detail` names the field or route the endpoint used. */
export function windowSourceText(source: ContextReport['limitSource'], detail?: string): string {
  return source === 'endpoint' && detail ? detail : SOURCES[source]
}

const k = (n: number) => (n < 1000 ? String(Math.round(n)) : `${(n / 1000).toFixed(1)}k`)

/**
 * The start-up warning when the tool definitions alone take more than a third of the window
 * (docs/context.md#the-budget), with the figures and the fix; null when they take less.
 */
export function definitionsWarning(opts: {
  tokens: number
  tools: number
  bytes: number
  window: number
  source: ContextReport['limitSource']
  sourceText: string
  budget: Budget
  systemTokens: number
}): { text: string; warning: ContextWarning } | null {
  if (opts.window <= 0 || opts.tokens <= opts.window * DEFINITIONS_SHARE) return null
  const share = opts.tokens / opts.window
  const left = opts.budget.prompt - opts.tokens - opts.systemTokens
  const room =
    left > 0
      ? `every request carries them, which leaves ~${k(left)} tokens for the conversation`
      : 'they leave no room for the conversation, so no request can be sent'
  const text =
    `The tool definitions take ~${k(opts.tokens)} tokens (${opts.tools} tools, ${(opts.bytes / 1024).toFixed(1)} kB), ` +
    `${Math.round(share * 100)} % of the model's ${opts.window.toLocaleString('en-US')}-token window (${opts.sourceText}): ${room}. ` +
    'Use a model or server with a larger window, fewer MCP servers, or --tools to send fewer tools.'
  return {
    text,
    warning: {
      kind: 'definitions',
      definitions_tokens: opts.tokens,
      definitions_bytes: opts.bytes,
      tools: opts.tools,
      window: opts.window,
      window_source: opts.source,
      share: Math.round(share * 1000) / 1000,
      room: Math.max(0, left),
    },
  }
}

/**
 * The start-up warning when settings give the model a larger window than the endpoint serves it with
 * (docs/context.md#where-the-window-comes-from): the server refuses longer prompts, or Ollama cuts them
 * silently. Null when they agree.
 */
export function servedWindowWarning(opts: {
  model: string
  window: number
  served: { tokens: number; source?: string } | undefined
}): { text: string; warning: ContextWarning } | null {
  const served = opts.served
  if (!served || served.tokens >= opts.window) return null
  const n = (x: number) => x.toLocaleString('en-US')
  const text =
    `Settings give ${opts.model} a ${n(opts.window)}-token window, but the endpoint serves it with ${n(served.tokens)}` +
    `${served.source ? ` (${served.source})` : ''}: a longer prompt is refused, or cut silently by Ollama. ` +
    `Start the server with the larger window (Ollama: OLLAMA_CONTEXT_LENGTH=${opts.window} ollama serve, or PARAMETER num_ctx ${opts.window} in a Modelfile; llama.cpp: -c; vLLM: --max-model-len), or lower contextLimit to ${n(served.tokens)}.`
  return {
    text,
    warning: {
      kind: 'served_window',
      window: opts.window,
      served: served.tokens,
      ...(served.source ? { served_source: served.source } : {}),
    },
  }
}
