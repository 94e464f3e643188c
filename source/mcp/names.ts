import { createHash } from 'node:crypto'

/**
 * Names of MCP tools as the model sees them: `mcp__<server>__<tool>` (Claude Code's form, so rules like
 * `mcp__github__*` carry over), limited to what chat-completions endpoints accept — `[A-Za-z0-9_-]`, at
 * most 64 characters. Calls are routed back through a table, never by parsing the name. Pure.
 */

export const MAX_TOOL_NAME = 64

/** Characters endpoints reject become `_`: `my server` → `my_server`. */
export function sanitizeName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_')
  return clean === '' ? '_' : clean
}

/**
 * The exposed name of `tool` on `serverKey` (already sanitized and unique). Too long → cut and given a
 * short hash of the full name; already taken (two names that sanitize alike) → a numeric suffix.
 */
export function exposedToolName(serverKey: string, tool: string, taken: ReadonlySet<string>): string {
  const full = `mcp__${serverKey}__${sanitizeName(tool)}`
  const withinLimit = (name: string, suffix = '') => {
    if (name.length + suffix.length <= MAX_TOOL_NAME) return name + suffix
    const hash = createHash('sha256').update(`${serverKey}\0${tool}`).digest('hex').slice(0, 6)
    return `${name.slice(0, MAX_TOOL_NAME - suffix.length - 7)}_${hash}${suffix}`
  }
  let name = withinLimit(full)
  for (let n = 2; taken.has(name); n++) name = withinLimit(full, `_${n}`)
  return name
}

/** A server's name as a key in `mcp__<key>__<tool>`: sanitized, no `__`, no `_` at either end. */
export function serverKeyBase(name: string): string {
  return (
    sanitizeName(name)
      .replace(/_{2,}/g, '_')
      .replace(/^_+|_+$/g, '') || 'server'
  )
}

/**
 * Sanitized server keys, unique across servers (`a b` and `a_b` → `a_b`, `a_b_2`), in input order. A key
 * never holds `__` nor starts or ends with `_` (`github__evil` → `github_evil`), so `mcp__<key>__` names
 * one server only: a rule `mcp__github__*` must not reach the tools of a server named `github__evil`.
 */
export function serverKeys(names: readonly string[]): Map<string, string> {
  const keys = new Map<string, string>()
  const used = new Set<string>()
  for (const name of names) {
    const base = serverKeyBase(name)
    let key = base
    for (let n = 2; used.has(key); n++) key = `${base}_${n}`
    used.add(key)
    keys.set(name, key)
  }
  return keys
}
