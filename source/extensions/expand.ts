import type { CommandDefinition, CommandInvocation, PromptPart } from './types.js'

/**
 * A command's prompt (its `body`, read when it runs) with its arguments put in (Claude Code's syntax): `$ARGUMENTS` is everything typed
 * after the name, `$1`…`$9` the words of it (quotes keep words together); a prompt that uses neither gets
 * the arguments appended as `ARGUMENTS: …`. Then the prompt is cut into text, `` !`command` `` (run first;
 * its output goes in its place) and `@path` (the file is included). Inside code spans nothing runs
 * and nothing is included; inside fenced code blocks `` !`command` `` runs (as in Claude Code), `@path` stays text.
 * A fenced block opened with ```` ```! ```` is one shell command, its whole text (Claude Code's bash block):
 * its output replaces the block. Pure: the runtime runs the pieces.
 */
export function expandCommand(
  command: Pick<CommandDefinition, 'name' | 'file' | 'allowedTools' | 'model'>,
  body: string,
  args: string,
): CommandInvocation {
  return {
    name: command.name,
    file: command.file,
    parts: promptParts(substituteArguments(body, args)),
    allowedTools: command.allowedTools,
    ...(command.model ? { model: command.model } : {}),
  }
}

export function substituteArguments(body: string, args: string): string {
  const all = args.trim()
  if (!/\$(ARGUMENTS|[1-9])/.test(body)) return all === '' ? body : `${body}\n\nARGUMENTS: ${all}`
  const words = splitArguments(all)
  return body.replace(/\$(ARGUMENTS|[1-9])/g, (_m, which: string) =>
    which === 'ARGUMENTS' ? all : (words[Number(which) - 1] ?? ''),
  )
}

/** `a "b c" 'd'` → ['a', 'b c', 'd']: blanks separate words, quotes keep them together. */
export function splitArguments(text: string): string[] {
  const words: string[] = []
  for (const m of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3] ?? '')
  return words
}

// Outside code: `!` right before a code span is a command; other code spans are skipped whole (so an
// `@` inside one stays text); `@` after a blank or an opening bracket starts a file reference.
const TOKEN = /!`([^`\n]+)`|`[^`\n]*`|(^|[\s([{])@([^\s`'"()<>[\]{},;]+)/g

export function promptParts(text: string): PromptPart[] {
  const parts: PromptPart[] = []
  const pushText = (t: string) => {
    if (t === '') return
    const last = parts.at(-1)
    if (last?.kind === 'text') parts[parts.length - 1] = { kind: 'text', text: last.text + t }
    else parts.push({ kind: 'text', text: t })
  }
  let inFence = false
  // The lines of an open ```` ```! ```` block, and the fence that closes it (its character, at least as long).
  let bashBlock: { open: string; lines: string[]; close: RegExp } | null = null
  for (const line of text.split(/(?<=\n)/)) {
    if (bashBlock) {
      if (!bashBlock.close.test(line)) {
        bashBlock.lines.push(line)
        continue
      }
      const command = bashBlock.lines.join('').trim()
      if (command !== '') parts.push({ kind: 'shell', command })
      // The output takes the block's place; what followed the fence starts on its own line.
      if (line.endsWith('\n')) pushText('\n')
      bashBlock = null
      continue
    }
    const opens = inFence ? null : /^\s*(`{3,})!\s*$/.exec(line)
    if (opens) {
      const fence = opens[1] ?? '```'
      const close = new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`)
      bashBlock = { open: line, lines: [], close }
      continue
    }
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence
    if (inFence || /^\s*(```|~~~)/.test(line)) {
      // Claude Code runs `` !`…` `` inside a fence too (commands show their context in one); `@` stays text.
      let from = 0
      for (const m of line.matchAll(/!`([^`\n]+)`/g)) {
        const start = m.index ?? 0
        pushText(line.slice(from, start))
        parts.push({ kind: 'shell', command: (m[1] ?? '').trim() })
        from = start + m[0].length
      }
      pushText(line.slice(from))
      continue
    }
    let at = 0
    for (const m of line.matchAll(TOKEN)) {
      const start = m.index ?? 0
      if (m[1] !== undefined) {
        pushText(line.slice(at, start))
        parts.push({ kind: 'shell', command: m[1].trim() })
        at = start + m[0].length
      } else if (m[3] !== undefined) {
        const ref = m[3].replace(/[.:!?]+$/, '')
        // `@Component` or `@user` is a word, not a file: a reference names a path (a dot or a slash).
        if (!/[./]/.test(ref)) continue
        const refStart = start + (m[2] ?? '').length
        pushText(line.slice(at, refStart))
        parts.push({ kind: 'file', path: ref })
        at = refStart + 1 + ref.length
      }
    }
    pushText(line.slice(at))
  }
  // A block never closed runs nothing: what it holds is text, as it was written.
  if (bashBlock) pushText([bashBlock.open, ...bashBlock.lines].join(''))
  return parts
}
