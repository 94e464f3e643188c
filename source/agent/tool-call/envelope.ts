import type { ErrorCategory } from '../../store/domain.js'

export interface ErrorEnvelope {
  tool: string
  category: ErrorCategory
  retryable: boolean
  message: string
  hint?: string
  /** A note the user added when they allowed the call (the call ran and failed). */
  user_note?: string
}

const RETRYABLE: ReadonlySet<ErrorCategory> = new Set(['network', 'timeout'])

/** The structured, model-visible form of every tool failure (ARCHITECTURE.md#invariants). */
export function envelope(
  tool: string,
  category: ErrorCategory,
  message: string,
  opts: { hint?: string; retryable?: boolean; userNote?: string } = {},
): ErrorEnvelope {
  const value: ErrorEnvelope = {
    tool,
    category,
    retryable: opts.retryable ?? RETRYABLE.has(category),
    message,
  }
  if (opts.hint) value.hint = opts.hint
  if (opts.userNote) value.user_note = opts.userNote
  return value
}

export function formatEnvelope(value: ErrorEnvelope): string {
  return JSON.stringify({ error: value })
}

export function cancelledEnvelope(tool: string): string {
  return formatEnvelope(envelope(tool, 'aborted', 'cancelled by user before this call finished'))
}
