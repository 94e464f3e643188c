/**
 * Token deltas can arrive hundreds of times a second; the UI redraws at most ~30 times a second. Collect
 * deltas and hand them on at most once per interval (and synchronously on flush).
 */
export class DeltaCoalescer {
  private text = ''
  private reasoning = ''
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly emit: (text: string, reasoning: string) => void,
    private readonly intervalMs = 16,
  ) {}

  push(kind: 'text' | 'reasoning', delta: string): void {
    if (kind === 'text') this.text += delta
    else this.reasoning += delta
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.intervalMs)
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = null
    }
    if (!this.text && !this.reasoning) return
    const text = this.text
    const reasoning = this.reasoning
    this.text = ''
    this.reasoning = ''
    this.emit(text, reasoning)
  }
}
