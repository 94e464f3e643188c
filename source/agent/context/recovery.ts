import type { ChatMessage } from '../../store/messages.js'
import { ProviderError } from '../../provider/types.js'
import type { Oversized } from './budget-checks.js'

/** What the turn loop needs of the context economy (ContextManager implements it). */
export interface RequestContext {
  /** The messages of the next request, system prompt first (may compact first). */
  prepare(opts: { step: number; signal: AbortSignal }): Promise<ChatMessage[]>
  /** After the endpoint refused a request as too long: compacts (and learns the window) for one retry. */
  recoverOverflow(error: ProviderError, signal: AbortSignal): Promise<void>
  /** When the retry overflowed too: says so with the figures; returns the turn's error. */
  overflowStop(error: ProviderError): string
  /** A step's new tool results that cannot be sent whole in any request (saved to files). */
  oversized?(results: ReadonlyArray<{ name: string; content: string }>): Promise<Oversized[]>
}

const isOverflow = (value: unknown): value is ProviderError =>
  value instanceof ProviderError && value.kind === 'context_overflow'

/**
 * Runs one step's request; on a context overflow compacts and runs it once more (docs/context.md#overflow-recovery). A second
 * overflow becomes an error that gives the figures, and the turn stops on it.
 */
export async function withOverflowRecovery<T>(
  context: RequestContext | undefined,
  attempt: () => Promise<T | Error>,
  signal: AbortSignal,
): Promise<T | Error> {
  const first = await attempt()
  if (!context || !isOverflow(first)) return first
  await context.recoverOverflow(first, signal)
  const second = await attempt()
  if (!isOverflow(second)) return second
  return new ProviderError('context_overflow', context.overflowStop(second), {
    url: second.url,
    cause: second,
    ...(second.status !== undefined ? { status: second.status } : {}),
  })
}
