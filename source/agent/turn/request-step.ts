import { repairPairing } from '../../provider/pairing.js'
import type { ChatMessage, ToolChoice, ToolDefinition } from '../../store/messages.js'
import {
  type ChatProvider,
  ProviderError,
  type StepResponse,
  type TextToolCallsReport,
} from '../../provider/types.js'
import type { Store } from '../../store/create-store.js'
import { ContextBudgetError } from '../context/budget.js'
import type { RequestContext } from '../context/recovery.js'
import { DeltaCoalescer } from './delta-coalescer.js'
import { RetryNotice } from './retry-notice.js'

/** What one step's request needs: the history to send, the endpoint, and where the reply goes. */
export interface StepDeps {
  store: Store
  provider: ChatProvider
  model(): string
  systemPrompt: string
  /** Byte-stable for the session: never filtered per step (docs/context.md#stable-prefix). Read at request time. */
  readonly toolDefinitions: ToolDefinition[]
  /** Assembles requests (masking, compaction) and recovers from overflows; without it the history goes as is. */
  context?: RequestContext
  /** Tools callable in plan mode, for `tool_choice` allowed_tools where the endpoint supports it. */
  readonly planModeToolNames: string[]
  supportsAllowedTools(): boolean
  /** Tool calls written as text are read as calls (the model profile's textToolCalls); absent: off. */
  textToolCalls?(): { bareJson: boolean } | undefined
  newId(prefix: string): string
  now(): number
}

export type StepOutcome = StepResponse & { assistantId: string }

/**
 * One request of a step: the reply streams into the store (coalesced), retries are noticed and a failed
 * attempt's text withdrawn; resolves with the whole reply, or the error that ended it.
 */
export async function requestStep(
  deps: StepDeps,
  lastStep: boolean,
  signal: AbortSignal,
): Promise<StepOutcome | Error> {
  const { dispatch, getState } = deps.store
  const state = getState()
  let toolChoice: ToolChoice = 'auto'
  if (lastStep) toolChoice = 'none'
  else if (state.mode === 'plan' && deps.supportsAllowedTools())
    toolChoice = { allowed: deps.planModeToolNames }
  const assistantId = deps.newId('assistant')
  const coalescer = new DeltaCoalescer((text, reasoning) =>
    dispatch({ type: 'assistant/delta', id: assistantId, text, reasoning }),
  )
  dispatch({ type: 'phase/changed', phase: 'requesting' })
  let streaming = false
  const markStreaming = () => {
    if (streaming) return
    streaming = true
    dispatch({ type: 'phase/changed', phase: 'streaming' })
  }
  const notice = new RetryNotice({ dispatch, newId: deps.newId, now: deps.now })
  /** What the failed attempt streamed is not the model's reply: take it off the screen. */
  const withdraw = () => {
    coalescer.discard()
    dispatch({ type: 'assistant/discarded', id: assistantId })
    streaming = false
  }
  try {
    const messages: ChatMessage[] = deps.context
      ? await deps.context.prepare({ step: state.run.step, signal })
      : [{ role: 'system', content: deps.systemPrompt }, ...repairPairing(state.messages)]
    const textToolCalls = deps.textToolCalls?.()
    const response = await deps.provider.stream(
      {
        model: deps.model(),
        messages,
        tools: deps.toolDefinitions,
        toolChoice,
        signal,
        ...(textToolCalls ? { textToolCalls } : {}),
      },
      {
        onText: (d) => {
          markStreaming()
          coalescer.push('text', d)
        },
        onReasoning: (d) => {
          markStreaming()
          coalescer.push('reasoning', d)
        },
        onRetry: (info) => {
          dispatch({ type: 'provider/retried', ...info })
          if (info.discarded) {
            withdraw()
            dispatch({ type: 'phase/changed', phase: 'requesting' })
          }
          notice.retrying(info)
        },
      },
    )
    coalescer.flush()
    if (response.aborted) notice.interrupted()
    else notice.recovered()
    if (response.usage) {
      dispatch({ type: 'usage/recorded', usage: response.usage, contextTokens: response.usage.input })
    }
    const unrun = response.textToolCalls && textCallNotice(response.textToolCalls)
    if (unrun) dispatch({ type: 'notice/added', id: deps.newId('notice'), level: 'warn', text: unrun })
    return { ...response, assistantId }
  } catch (err) {
    withdraw()
    const error =
      err instanceof ProviderError || err instanceof ContextBudgetError
        ? err
        : new Error(`provider failed: ${err instanceof Error ? err.message : String(err)}`)
    notice.failed(error.message)
    return error
  }
}

/** Why tool-call markup in the reply was not run (it shows as the answer); null when it was. */
export function textCallNotice(report: TextToolCallsReport): string | null {
  if (report.outcome === 'recovered') return null
  const what = `the reply holds a tool call written as text (${report.format} format)`
  if (report.outcome === 'unknown')
    return `${what}, but no tool is called ${listed(report.names)}: it was not run and shows as the answer`
  if (report.outcome === 'quoted')
    return `${what} to ${listed(report.names)}, copied from what the model read (a file, a command's output or the instructions): a quote is not run, and shows as the answer`
  return `${what} that could not be read (${report.why}): it was not run and shows as the answer`
}

/** The names the model wrote, bounded: a notice stays one line however many it invented. */
function listed(names: readonly string[]): string {
  const shown = names.slice(0, 3).map((n) => (n.length > 60 ? `${n.slice(0, 60)}…` : n))
  return names.length > 3 ? `${shown.join(', ')} and ${names.length - 3} more` : shown.join(', ')
}
