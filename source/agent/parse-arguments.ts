export type ParsedArguments = { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string }

/**
 * Parses a tool call's JSON arguments, repairing only the trivial defects ARCHITECTURE.md#invariants allows: code fences
 * around the JSON, trailing commas, and an empty string for "no arguments". Nothing missing is ever
 * invented: arguments cut short (a missing `}` or `"`) are an error, because guessing where they ended
 * would run a call the model never finished writing.
 */
export function parseToolArguments(raw: string): ParsedArguments {
  const text = raw.trim()
  if (text === '') return { ok: true, value: {}, repaired: raw !== '' }
  const direct = tryParse(text)
  if (direct.ok) return { ok: true, value: direct.value, repaired: false }
  const unfenced = stripFences(text)
  for (const candidate of [unfenced, removeTrailingCommas(unfenced)]) {
    if (candidate === text) continue
    const attempt = tryParse(candidate)
    if (attempt.ok) return { ok: true, value: attempt.value, repaired: true }
  }
  return { ok: false, error: `arguments are not valid JSON (${direct.error}); received: ${excerpt(text)}` }
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) }
  }
}

function stripFences(text: string): string {
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/i.exec(text)
  return fenced?.[1] ?? text
}

function removeTrailingCommas(text: string): string {
  // Only outside strings: walk the text so a ", }" inside a string value stays intact.
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string
    if (inString) {
      out += ch
      if (ch === '\\') {
        out += text[i + 1] ?? ''
        i++
      } else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    if (ch === ',') {
      const rest = text.slice(i + 1).trimStart()
      if (rest.startsWith('}') || rest.startsWith(']')) continue
    }
    out += ch
  }
  return out
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}
