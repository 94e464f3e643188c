import type { CommandDefinition, CommandInvocation, PromptPart } from './types.js'

/**
 * A command's prompt (its `body`, read when it runs) with its arguments put in (Claude Code's syntax,
 * `substituteArguments`). Then the prompt is cut into text, `` !`command` `` (run first;
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

/**
 * Claude Code's substitution: `$ARGUMENTS` is everything typed, `$ARGUMENTS[N]` and its shorthand `$N` the
 * N-th word counted from 0. A `$N` with no such word stays as written: real prompts hold prices (`$5.00`)
 * and awk fields (`{print $1}`) that no argument was meant for. When nothing was put in, the arguments
 * are appended as `ARGUMENTS: …`, so what was typed is never lost.
 */
export function substituteArguments(body: string, args: string): string {
  const all = args.trim()
  const words = splitArguments(all)
  let used = false
  const out = body.replace(PLACEHOLDER, (match, index: string | undefined, short: string | undefined) => {
    if (index === undefined && short === undefined) {
      used = true
      return all
    }
    const word = words[Number(index ?? short)]
    if (word === undefined) return match
    used = true
    return word
  })
  return used || all === '' ? out : `${out}\n\nARGUMENTS: ${all}`
}

/** `$ARGUMENTS[N]`, `$ARGUMENTS`, or `$N` (not `$N` inside a longer name such as `$1abc`). */
const PLACEHOLDER = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS(?!\[\d)|\$(\d+)(?![\w])/g

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
