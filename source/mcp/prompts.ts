import type { McpPromptInfo } from './connection.js'
import { type ContentBlock, convertContent } from './content.js'
import { sanitizeName } from './names.js'

/**
 * MCP prompts as slash commands: `/mcp__<server>__<prompt> args`. The arguments are given in order
 * (the last one takes the rest of the line) or as `name=value` pairs. Pure.
 */

/** The slash command of a prompt (without `/`). */
export function promptCommand(serverKey: string, prompt: string): string {
  return `mcp__${serverKey}__${sanitizeName(prompt)}`
}

/** `/mcp__docs__summarize <topic> [length]`. */
export function promptUsage(command: string, prompt: McpPromptInfo): string {
  const args = prompt.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`))
  return [`/${command}`, ...args].join(' ')
}

/** Splits on whitespace, keeping "quoted text" together. */
function words(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)) {
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3] ?? ''))
  }
  return out
}

/** The prompt's arguments from the text after the command; throws with the usage when one is missing. */
export function promptArguments(
  command: string,
  prompt: McpPromptInfo,
  text: string,
): Record<string, string> {
  const names = new Set(prompt.arguments.map((a) => a.name))
  const tokens = words(text.trim())
  const args: Record<string, string> = {}
  const named =
    tokens.length > 0 &&
    tokens.every((t) => {
      const eq = t.indexOf('=')
      return eq > 0 && names.has(t.slice(0, eq))
    })
  if (named) {
    for (const t of tokens) args[t.slice(0, t.indexOf('='))] = t.slice(t.indexOf('=') + 1)
  } else {
    prompt.arguments.forEach((a, i) => {
      const last = i === prompt.arguments.length - 1
      const value = last ? tokens.slice(i).join(' ') : tokens[i]
      if (value !== undefined && value !== '') args[a.name] = value
    })
  }
  const missing = prompt.arguments.filter((a) => a.required && args[a.name] === undefined)
  if (missing.length) {
    throw new Error(
      `${missing.map((a) => a.name).join(', ')} ${missing.length === 1 ? 'is' : 'are'} required — usage: ${promptUsage(command, prompt)}`,
    )
  }
  return args
}

/** A prompt's messages as one user message: one message as it is, several with their roles. */
export function promptText(
  messages: ReadonlyArray<{ role: string; content: ContentBlock | ContentBlock[] }>,
  vision: boolean,
): { text: string; images: ReturnType<typeof convertContent>['images'] } {
  const converted = messages.map((m) => ({
    role: m.role,
    ...convertContent(Array.isArray(m.content) ? m.content : [m.content], vision),
  }))
  const images = converted.flatMap((c) => c.images)
  if (converted.length === 1) return { text: converted[0]?.text ?? '', images }
  return { text: converted.map((c) => `[${c.role}]\n${c.text}`).join('\n\n'), images }
}
