export interface CircuitBreakerConfig {
  warnAt: number
  pauseAt: number
  hardStopAt: number
  perToolLimit?: number
  maxDurationSeconds?: number
  silentBehavior: 'stop' | 'warn-and-continue' | 'error'
}

export const DEFAULT_BREAKER: CircuitBreakerConfig = {
  warnAt: 20,
  pauseAt: 40,
  hardStopAt: 100,
  silentBehavior: 'stop',
}

export type BreakerVerdict =
  | { kind: 'ok' }
  | { kind: 'warn'; message: string }
  | { kind: 'pause'; message: string }
  | { kind: 'stop'; message: string }

/** Progressive limits on tool calls within one turn (docs/configuration.md#turn-limits). */
export class CircuitBreaker {
  private calls = 0
  private readonly perTool = new Map<string, number>()
  private warned = false
  private paused = false

  constructor(
    private readonly config: CircuitBreakerConfig,
    private readonly startedAt: number,
  ) {}

  record(tool: string, now: number): BreakerVerdict {
    this.calls++
    const forTool = (this.perTool.get(tool) ?? 0) + 1
    this.perTool.set(tool, forTool)
    const { warnAt, pauseAt, hardStopAt, perToolLimit, maxDurationSeconds } = this.config
    if (this.calls >= hardStopAt) {
      return {
        kind: 'stop',
        message: `circuit breaker: hard stop after ${this.calls} tool calls in one turn`,
      }
    }
    if (perToolLimit !== undefined && forTool > perToolLimit) {
      return {
        kind: 'stop',
        message: `circuit breaker: ${tool} was called ${forTool} times (limit ${perToolLimit})`,
      }
    }
    if (maxDurationSeconds !== undefined && now - this.startedAt > maxDurationSeconds * 1000) {
      return { kind: 'stop', message: `circuit breaker: the turn ran longer than ${maxDurationSeconds} s` }
    }
    if (this.calls >= pauseAt && !this.paused) {
      this.paused = true
      return { kind: 'pause', message: `circuit breaker: ${this.calls} tool calls in this turn` }
    }
    if (this.calls >= warnAt && !this.warned) {
      this.warned = true
      return { kind: 'warn', message: `${this.calls} tool calls in this turn (pauses at ${pauseAt})` }
    }
    return { kind: 'ok' }
  }
}
