/**
 * A directory search (Grep, Glob) reads files the permission check never saw one by one. Those a deny
 * rule keeps the tool from reading (`Read(private/**)`) are left out of its results, as a Read of each
 * would be refused, and the model is told how many and by which rule.
 */
export class DeniedReads {
  private readonly seen = new Map<string, string | undefined>()
  private readonly check: ((path: string) => string | undefined) | undefined

  constructor(check: ((path: string) => string | undefined) | undefined) {
    this.check = check
  }

  /** Whether the file (an absolute path) may appear in the results. */
  allows(path: string): boolean {
    if (!this.check) return true
    if (!this.seen.has(path)) this.seen.set(path, this.check(path))
    return this.seen.get(path) === undefined
  }

  /** `[2 files left out: rule Read(private/**) in … denies reading them]`, or '' when none was. */
  note(): string {
    const byRule = new Map<string, number>()
    for (const rule of this.seen.values())
      if (rule !== undefined) byRule.set(rule, (byRule.get(rule) ?? 0) + 1)
    return [...byRule]
      .map(([rule, n]) => `[${n} file${n === 1 ? '' : 's'} left out: ${rule} denies reading them]`)
      .join('\n')
  }
}
