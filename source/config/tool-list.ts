import { UsageError } from './errors.js'

/** A tool's name as `--tools` and the `tools` setting take it: `Read`, `mcp__github__*` (`*` a wildcard). */
export const TOOL_LIST_NAME = /^[A-Za-z*][A-Za-z0-9_.*-]*$/

/**
 * `--tools Read,Grep,Glob`: tool names, not rules; `""` offers none, `default` every tool (undefined).
 * Throws UsageError for a name that is not one.
 */
export function toolNames(value: string | true | undefined): string[] | undefined {
  if (value === undefined || value === true) return undefined
  if (value.trim() === 'default') return undefined
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
  for (const name of names) {
    if (!TOOL_LIST_NAME.test(name))
      throw new UsageError(
        `--tools takes tool names such as Read,Grep,Glob or mcp__github__* (got "${name}")`,
      )
  }
  return names
}
