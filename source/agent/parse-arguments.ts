export type ParsedArguments = { ok: true; value: unknown; repaired: boolean } | { ok: false; error: string }

/**
 * Parses a tool call's JSON arguments, repairing the trivial defects small models produce: code fences,
 * trailing commas, an empty string for "no arguments", and a trailing missing brace.
 */
export function parseToolArguments(raw: string): ParsedArguments {
  const text = raw.trim()
  if (text === '') return { ok: true, value: {}, repaired: raw !== '' }
  const direct = tryParse(text)
  if (direct.ok) return { ok: true, value: direct.value, repaired: false }
  const candidates = [stripFences(text)]
  candidates.push(removeTrailingCommas(candidates[0] ?? text))
  candidates.push(closeBraces(candidates[1] ?? text))
  for (const candidate of candidates) {
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

function closeBraces(text: string): string {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (inString) {
      if (ch === '\\') i++
      else if (ch === '"') inString = false
    } else if (ch === '"') inString = true
    else if (ch === '{') depth++
    else if (ch === '}') depth--
  }
  return depth > 0 && depth < 3 && !inString ? text + '}'.repeat(depth) : text
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}
