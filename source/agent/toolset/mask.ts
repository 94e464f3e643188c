import { type Rule, ruleCoversTool } from '../../permissions/rules.js'

/**
 * Which tools a session offers the model at all (docs/tools.md#tool-masks): `--tools` or the `tools`
 * setting name exactly the tools to send, and a deny rule that names a tool with no specifier (`WebFetch`,
 * `mcp__github__*`) takes it out of the request too, not only its calls. A masked tool is neither sent,
 * nor in the on-demand catalog, nor callable. Pure.
 */

export interface ToolMask {
  /** Whether the model is offered `name` and may call it. */
  allows(name: string): boolean
  /** Why `name` is not offered (`--tools`, the `tools` setting, a deny rule), or undefined when it is. */
  reason(name: string): string | undefined
}

/** `--tools` or the `tools` setting: the names (`*` a wildcard) and where they were given. */
export interface ToolList {
  names: readonly string[]
  /** `--tools` or the settings file's label. */
  source: string
}

export const NO_MASK: ToolMask = { allows: () => true, reason: () => undefined }

export function toolMask(opts: { only?: ToolList | undefined; denied?: readonly Rule[] }): ToolMask {
  const only = opts.only
  const patterns = only?.names.map(namePattern)
  const bare = (opts.denied ?? []).filter(isBareRule)
  const reason = (name: string): string | undefined => {
    if (only && patterns && !patterns.some((p) => p.test(name)))
      return `${only.source} does not list it (${only.names.join(',') || 'no tools'})`
    const rule = bare.find((r) => ruleCoversTool(r, name))
    if (rule) return `denied by the rule ${rule.text}${rule.source ? ` in ${rule.source}` : ''}`
    return undefined
  }
  if (!only && bare.length === 0) return NO_MASK
  return { allows: (name) => reason(name) === undefined, reason }
}

/** A deny rule for every call of its tools: no specifier, or `*`. */
export function isBareRule(rule: Rule): boolean {
  return rule.specifier === undefined || rule.specifier === '*'
}

function namePattern(name: string): RegExp {
  const body = name
    .split('*')
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*')
  return new RegExp(`^${body}$`)
}

/** Names a tool list gives that no tool has (a typo would quietly offer less); MCP names are known later. */
export function unknownToolNames(list: ToolList, known: readonly string[]): string[] {
  const unknown = list.names.filter(
    (name) => !name.includes('*') && !name.startsWith('mcp__') && !known.includes(name),
  )
  if (unknown.length === 0) return []
  return [`${list.source}: no tool is named ${unknown.join(', ')} (the tools: ${known.join(', ')})`]
}
