/** A permission rule, parsed: `Tool` or `Tool(specifier)` (rules.ts parses and matches them). */
export interface Rule {
  /** Canonical text, e.g. `Bash(npm test *)`. */
  readonly text: string
  /** Tool name; `*` is a wildcard (`mcp__server__*`). */
  readonly tool: string
  /** What inside the tool the rule covers; absent = every call of the tool. */
  readonly specifier?: string
  /** Where the rule came from (settings file, flag, session), for messages. */
  readonly source?: string
}
