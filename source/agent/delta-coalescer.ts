/**
 * Token deltas can arrive hundreds of times a second, and every store update costs the UI work (Markdown
 * of the live tail, a paint). Collect deltas and hand them on at most once per interval — 50 ms keeps the
 * text visibly flowing at 20 updates a second — and synchronously on flush.
 */
export class DeltaCoalescer {
  private text = ''
  private reasoning = ''
  private timer: NodeJS.Timeout | null = null

  constructor(
    private readonly emit: (text: string, reasoning: string) => void,
    private readonly intervalMs = 50,
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
