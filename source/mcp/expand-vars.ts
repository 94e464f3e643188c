/**
 * `${VAR}` and `${VAR:-default}` in MCP server settings (Claude Code's `.mcp.json` syntax), so a
 * committed file can name a token without containing it. Pure.
 */

export interface Expanded<T> {
  value: T
  /** Variables that were unset (or empty) and had no default. */
  missing: string[]
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/** Expands one string; an unset variable without a default expands to '' and is reported. */
export function expandString(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): Expanded<string> {
  const missing: string[] = []
  const value = text.replace(REFERENCE, (_all, name: string, fallback: string | undefined) => {
    const found = env[name]
    if (found !== undefined && found !== '') return found
    if (fallback !== undefined) return fallback
    missing.push(name)
    return ''
  })
  return { value, missing }
}

/** Expands every string in a list or record, collecting what was missing. */
export function expandAll<T extends readonly string[] | Readonly<Record<string, string>>>(
  values: T,
  env: Readonly<Record<string, string | undefined>>,
): Expanded<T> {
  const missing: string[] = []
  const one = (text: string) => {
    const r = expandString(text, env)
    missing.push(...r.missing)
    return r.value
  }
  const value = Array.isArray(values)
    ? values.map(one)
    : Object.fromEntries(Object.entries(values).map(([k, v]) => [k, one(v as string)]))
  return { value: value as unknown as T, missing }
}
