import { readdir, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { parseRule } from '../permissions/rules.js'
import type { InstructionReader } from '../tools/instruction-file.js'
import { renamedNotice, ruleWithToolName } from './claude-names.js'
import { type FrontmatterValue, parseFrontmatter } from './frontmatter.js'
import type { CommandDefinition, ExtensionProblem, ExtensionScope } from './types.js'
import { compareNames } from '../util/compare-names.js'
import { ownString } from '../util/own-string.js'

/**
 * User-defined slash commands in Claude Code's format: each `*.md` file of a commands folder is a command
 * named after the file, its subfolders only group them (`frontend/component.md` is `/component`, shown as
 * "(project:frontend)"). The optional frontmatter gives `description`, `argument-hint`, `allowed-tools`
 * and `model`; the body is the prompt. A file that cannot be used is reported with the file and the
 * field, and left out: it never stops the session.
 */

export interface LoadedCommands {
  commands: CommandDefinition[]
  problems: ExtensionProblem[]
}

/**
 * Not a cap on collections (hundreds of commands all load, off the first frame's path): a guard against a
 * folder that is no commands folder at all (a home directory linked in), said in a notice.
 */
const MAX_FILES = 5000
/** Deeper than this is not a grouping any more. */
const MAX_DEPTH = 4
const MAX_FILE_BYTES = 256 * 1024
const NAME = /^[A-Za-z][\w-]*$/
/** Claude Code's names for its model tiers: they mean nothing to another endpoint. */
const CLAUDE_TIERS = new Set(['sonnet', 'opus', 'haiku', 'inherit'])

/**
 * Reads every command of `dir` (sorted by path). A missing folder is no commands and no problem.
 * `label(path)` says how a file is shown in messages.
 */
export async function loadCommandDir(opts: {
  dir: string
  scope: ExtensionScope
  label(path: string): string
  /** Reads a command file through the read boundary (a link into ~/.ssh is left out, with why). */
  read: InstructionReader
  /** Applied to each file's text before it is parsed (a plugin's `${CLAUDE_PLUGIN_ROOT}`). */
  rewrite?(text: string): string
}): Promise<LoadedCommands> {
  const problems: ExtensionProblem[] = []
  const files = await listMarkdown(opts.dir, problems, opts.label)
  const commands: CommandDefinition[] = []
  const byName = new Map<string, CommandDefinition>()
  for (const path of files) {
    const file = opts.label(path)
    const parts = relative(opts.dir, path).split(/[\\/]/)
    const name = (parts.pop() ?? '').slice(0, -'.md'.length)
    const at: CommandFileAt = { path, file, name, namespace: parts, scope: opts.scope, read: opts.read }
    if (opts.rewrite) at.rewrite = opts.rewrite
    const command = await readCommand(at, problems)
    if (!command) continue
    const earlier = byName.get(name.toLowerCase())
    if (earlier) {
      problems.push({
        file,
        message: `/${name} is already defined by ${earlier.file}; this one is left out (rename one of the files)`,
        skipped: true,
      })
      continue
    }
    byName.set(name.toLowerCase(), command)
    commands.push(command)
  }
  return { commands, problems }
}

interface CommandFileAt {
  path: string
  file: string
  name: string
  namespace: string[]
  scope: ExtensionScope
  read: InstructionReader
  rewrite?(text: string): string
}

/** A command as read from its file, body included. */
type ReadCommand = Omit<CommandDefinition, 'readBody'> & { body: string; real: string }

async function readCommand(
  at: CommandFileAt,
  problems: ExtensionProblem[],
): Promise<CommandDefinition | null> {
  const read = await readCommandFile(at, problems)
  if (!read) return null
  const { body: _body, real, ...kept } = read
  return { ...kept, readBody: () => readBodyAgain(at, real, kept) }
}

/**
 * The body when the command runs, from the file as it is now: an edited prompt is used as edited. It
 * must still be the file read at start (the same real path, through the same read boundary), and say
 * the same `allowed-tools` and `model`, which were checked and shown then.
 */
async function readBodyAgain(
  at: CommandFileAt,
  real: string,
  kept: Pick<CommandDefinition, 'allowedTools' | 'model'>,
): Promise<string> {
  const problems: ExtensionProblem[] = []
  const now = await readCommandFile(at, problems)
  if (!now) {
    const why = problems.find((p) => p.skipped)?.message ?? 'it cannot be read'
    throw new Error(`${at.file}: ${why} (it was read when the session started)`)
  }
  if (now.real !== real)
    throw new Error(
      `${at.file} now leads to ${now.real}, not the file read when the session started (${real}); restart the session to use it`,
    )
  const same = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((x, i) => x === b[i])
  if (!same(now.allowedTools, kept.allowedTools) || now.model !== kept.model)
    throw new Error(
      `${at.file}: its allowed-tools or model changed since the session started; restart the session to use them`,
    )
  return now.body
}

async function readCommandFile(at: CommandFileAt, problems: ExtensionProblem[]): Promise<ReadCommand | null> {
  const { file, name } = at
  const skip = (message: string, field?: string) => {
    problems.push({ file, ...(field ? { field } : {}), message, skipped: true })
    return null
  }
  if (!NAME.test(name)) {
    return skip(
      `"${name}" cannot be a command name: use letters, digits, "-" and "_", starting with a letter (rename the file)`,
    )
  }
  const read = await at.read.file(at.path, { maxBytes: MAX_FILE_BYTES })
  if (read.kind === 'missing') return skip('cannot be read: it is gone')
  if (read.kind === 'refused') return skip(`left out: ${read.reason}`)
  if (read.truncated) {
    return skip(`the file is ${Math.ceil(read.size / 1024)} KB; a command file may be at most 256 KB`)
  }
  const text = at.rewrite ? at.rewrite(read.text) : read.text
  const parsed = await parseFrontmatter(text)
  if (!parsed.ok) return skip(`frontmatter, line ${parsed.line}: ${parsed.message}`)
  const { data, raw } = parsed
  const body = parsed.body.replace(/^\s*\n/, '').trimEnd()
  if (body.trim() === '') return skip('the file has no prompt after its frontmatter')
  const note = (message: string, field?: string) =>
    problems.push({ file, ...(field ? { field } : {}), message, skipped: false })

  const description = data.description
  if (description !== undefined && description !== null && typeof description !== 'string') {
    return skip('expected one line of text', 'description')
  }
  const model = data.model
  if (model !== undefined && model !== null && typeof model !== 'string') {
    return skip('expected a model id such as "gpt-4.1-mini"', 'model')
  }
  const allowed = ruleList(data['allowed-tools'])
  if ('message' in allowed) return skip(allowed.message, 'allowed-tools')
  const renamed = renamedNotice(allowed.renamed)
  if (renamed) note(renamed, 'allowed-tools')
  let chosenModel = typeof model === 'string' && model.trim() !== '' ? model.trim() : undefined
  if (chosenModel && CLAUDE_TIERS.has(chosenModel.toLowerCase())) {
    problems.push({
      file,
      field: 'model',
      message: `"${chosenModel}" is a Claude Code model tier, not a model of this endpoint: the session's model is used`,
      skipped: false,
    })
    chosenModel = undefined
  }
  const hint = argumentHint(raw['argument-hint'], data['argument-hint'])
  // What is kept for the session is copied out of the file's text, which would otherwise stay alive.
  return {
    name,
    scope: at.scope,
    namespace: at.namespace,
    // One line for completion and /help, however the file wraps it.
    description: ownString(
      (typeof description === 'string' && description.replace(/\s+/g, ' ').trim()) || firstLine(body),
    ),
    ...(hint ? { argumentHint: ownString(hint) } : {}),
    allowedTools: allowed.rules.map(ownString),
    ...(chosenModel ? { model: ownString(chosenModel) } : {}),
    body,
    real: read.real,
    file,
  }
}

/**
 * `allowed-tools` as Claude Code writes it: one string of rules separated by commas (or spaces, as skills
 * write them), or a YAML list. Each must parse as a permission rule.
 */
function ruleList(
  value: FrontmatterValue | undefined,
): { rules: string[]; renamed: Array<[string, string]> } | { message: string } {
  if (value === undefined || value === null) return { rules: [], renamed: [] }
  const items = Array.isArray(value) ? value : typeof value === 'string' ? splitRules(value) : null
  if (items === null || items.some((i) => typeof i !== 'string'))
    return { message: 'expected rules such as "Read, Bash(git diff *)"' }
  const rules: string[] = []
  const renamed: Array<[string, string]> = []
  for (const item of (items as string[]).map((i) => i.trim()).filter(Boolean)) {
    try {
      const rule = parseRule(ruleWithToolName(item))
      if (rule.tool !== parseRule(item).tool) renamed.push([parseRule(item).tool, rule.tool])
      rules.push(rule.text)
    } catch (error) {
      return { message: (error as Error).message }
    }
  }
  return { rules, renamed }
}

/** Splits at commas and blanks outside parentheses: `Read, Bash(git diff *)` → two rules. */
function splitRules(text: string): string[] {
  const out: string[] = []
  let depth = 0
  let current = ''
  for (const ch of text) {
    if (ch === '(') depth++
    if (ch === ')') depth = Math.max(0, depth - 1)
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      out.push(current)
      current = ''
    } else current += ch
  }
  out.push(current)
  return out
}

/** `argument-hint: [file] [focus]` means that text (YAML would read a list); quotes are taken off. */
export function argumentHint(
  raw: string | undefined,
  value: FrontmatterValue | undefined,
): string | undefined {
  if (raw !== undefined) {
    const text = raw.trim().replace(/^(["'])(.*)\1$/, '$2')
    return text === '' ? undefined : text
  }
  if (typeof value === 'string') return value.trim() || undefined
  if (Array.isArray(value)) return value.map((v) => `[${v}]`).join(' ') || undefined
  return undefined
}

function firstLine(body: string): string {
  const line = (body.split('\n').find((l) => l.trim() !== '') ?? '').replace(/^#+\s*/, '').trim()
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

/** The `*.md` files under `dir`, shallowest first, at most MAX_FILES of them, MAX_DEPTH folders deep. */
async function listMarkdown(
  dir: string,
  problems: ExtensionProblem[],
  label: (path: string) => string,
): Promise<string[]> {
  const found: string[] = []
  const visit = async (folder: string, depth: number): Promise<void> => {
    let entries: string[]
    try {
      entries = (await readdir(folder)).sort()
    } catch {
      return
    }
    for (const name of entries) {
      if (found.length >= MAX_FILES) return
      if (name.startsWith('.')) continue
      const path = join(folder, name)
      const info = await stat(path).catch(() => null)
      if (info?.isDirectory()) {
        if (depth < MAX_DEPTH) await visit(path, depth + 1)
      } else if (info?.isFile() && name.endsWith('.md')) found.push(path)
    }
  }
  await visit(dir, 0)
  // A file at the top wins a name over one in a subfolder.
  const depth = (path: string) => relative(dir, path).split(/[\\/]/).length
  found.sort((a, b) => depth(a) - depth(b) || compareNames(a, b))
  if (found.length >= MAX_FILES) {
    problems.push({
      file: label(dir),
      message: `holds more than ${MAX_FILES} Markdown files: only the first ${MAX_FILES} are read as commands (is it a commands folder?)`,
      skipped: false,
    })
  }
  return found
}
