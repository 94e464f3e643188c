/**
 * Detects a model repeating the same failing call. Identical (tool, arguments) failing twice with a
 * non-retryable error, or four times with a retryable one, earns one reminder; a repeat after the
 * reminder stops the turn (never a silent halt: docs/configuration.md#turn-limits).
 */
export type GuardVerdict = 'ok' | 'remind' | 'stop'

export class LoopGuard {
  private readonly failures = new Map<string, number>()
  private reminded = false

  record(tool: string, args: string, outcome: { ok: boolean; retryable: boolean }): GuardVerdict {
    const key = `${tool}\u0000${normalise(args)}`
    if (outcome.ok) {
      this.failures.delete(key)
      return 'ok'
    }
    const count = (this.failures.get(key) ?? 0) + 1
    this.failures.set(key, count)
    const limit = outcome.retryable ? 4 : 2
    if (count < limit) return 'ok'
    if (!this.reminded) {
      this.reminded = true
      this.failures.set(key, 0)
      return 'remind'
    }
    return 'stop'
  }
}

function normalise(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args))
  } catch {
    return args.trim()
  }
}

export function reminderText(tool: string, error: string): string {
  return (
    `Reminder: the ${tool} call you keep making fails the same way (${error}). Read the error carefully; ` +
    'do not repeat the identical call. Try a different approach or another tool, or explain what blocks you.'
  )
}
