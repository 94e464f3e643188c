import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { agentToolName, renamedNotice } from '../../extensions/claude-names.js'
import { type FrontmatterValue, parseFrontmatter } from '../../extensions/frontmatter.js'
import type { InstructionReader } from '../../tools/instruction-file.js'
import { splitRuleList } from '../../permissions/rules.js'
import { ownString } from '../../util/own-string.js'
import { type AgentProfile, type AgentSource, BUILT_IN_AGENTS } from './agent-profiles.js'

/**
 * Custom agents: Markdown files with a frontmatter block (`name`, `description`, `tools`,
 * `disallowedTools`, `model`, `max_turns`) whose body is the agent's instructions, in Claude Code's format and with its leniency: a
 * block that is not YAML is read as Claude Code reads it, a name that is no agent name is the file's,
 * Claude Code's tool names are agent-tui's (`LS` is `Glob`), each with a one-line notice. A file that
 * cannot be used is reported with the file and the field, and skipped: it never stops the session.
 */

export interface AgentFileProblem {
  /** The file as shown to the user. */
  file: string
  /** The frontmatter field at fault, when one is. */
  field?: string
  message: string
  /** False for warnings: the agent still loaded. */
  skipped: boolean
  /** Which agent a name means (a clash): never folded into the start-up summary line. */
  naming?: boolean
}

/** An agent file as parsed, its body included (the profile reads it again when the agent runs). */
export type ParsedAgent = Omit<AgentProfile, 'instructions'> & { prompt: string }

export interface LoadedAgents {
  agents: AgentProfile[]
  problems: AgentFileProblem[]
}

/**
 * Not a cap on collections (hundreds of agents all load, off the first frame's path): a guard against a
 * folder that is no agents folder at all, said in a notice.
 */
const MAX_FILES = 5000
const MAX_FILE_BYTES = 256 * 1024
/** Agent files read at the same time. */
const READ_AT_ONCE = 8
/** Claude Code's names for its model tiers: they mean nothing to another endpoint. */
const CLAUDE_TIERS = new Set(['sonnet', 'opus', 'haiku'])
/** Claude Code's fields with no meaning here (its UI colour, effort, …): left out without a warning. */
const QUIET_FIELDS = new Set(['color', 'effort', 'initialPrompt', 'permissionMode', 'maxTurns'])

const KNOWN_FIELDS = ['name', 'description', 'tools', 'disallowedTools', 'model', 'max_turns']

const nameSchema = z
  .string({ error: 'expected a name such as "reviewer"' })
  .regex(/^[A-Za-z0-9][\w.-]{0,63}$/, 'expected letters, digits, "-", "_" or "." (at most 64 characters)')

const descriptionSchema = z
  .string({ error: 'expected one line saying when to use this agent' })
  .trim()
  .min(1, 'expected one line saying when to use this agent')

const maxTurnsSchema = z
  .number({ error: 'expected a whole number of turns, e.g. 20' })
  .int('expected a whole number of turns, e.g. 20')
  .min(1, 'expected at least 1')
  .max(500, 'expected at most 500')

/**
 * Reads every `*.md` file of `dir` (sorted by name). A missing folder is no agents and no problem.
 * `label(path)` says how a file is shown; `tools` are the tool names the session has.
 */
export async function loadAgentDir(opts: {
  dir: string
  source: Exclude<AgentSource, 'built-in'>
  label(path: string): string
  tools: readonly string[]
  /** Reads an agent file through the read boundary (a link into ~/.ssh or a FIFO is left out, with why). */
  read: InstructionReader
}): Promise<LoadedAgents> {
  let names: string[]
  try {
    names = (await readdir(opts.dir, { withFileTypes: true }))
      .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith('.md') && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort()
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { agents: [], problems: [] }
    return {
      agents: [],
      problems: [
        {
          file: opts.label(opts.dir),
          message: `cannot list the folder: ${(err as Error).message}`,
          skipped: true,
        },
      ],
    }
  }
  const problems: AgentFileProblem[] = []
  if (names.length > MAX_FILES) {
    problems.push({
      file: opts.label(opts.dir),
      message: `${names.length} Markdown files: only the first ${MAX_FILES} (by name) are read as agents (is it an agents folder?)`,
      skipped: false,
    })
    names = names.slice(0, MAX_FILES)
  }
  const agents: AgentProfile[] = []
  const files = names.map(
    (name): AgentFileAt => ({
      path: join(opts.dir, name),
      file: opts.label(join(opts.dir, name)),
      source: opts.source,
      tools: opts.tools,
      fallbackName: name.slice(0, -3),
      read: opts.read,
    }),
  )
  // A few side by side: the session's start waits for them, and all at once would hold every file's text
  // at the same time (with 100 agents neither way moved the bench's figures beyond its noise).
  const all: Array<Awaited<ReturnType<typeof readAgentFile>>> = []
  for (let i = 0; i < files.length; i += READ_AT_ONCE)
    all.push(...(await Promise.all(files.slice(i, i + READ_AT_ONCE).map(readAgentFile))))
  for (const [i, loaded] of all.entries()) {
    const at = files[i] as AgentFileAt
    problems.push(...loaded.problems)
    if (!loaded.agent) continue
    const { prompt: _prompt, ...kept } = loaded.agent
    const real = loaded.real
    agents.push({ ...kept, instructions: () => instructionsAgain(at, real, kept) })
  }
  return { agents, problems }
}

interface AgentFileAt {
  path: string
  file: string
  source: Exclude<AgentSource, 'built-in'>
  tools: readonly string[]
  fallbackName: string
  read: InstructionReader
}

/** One agent file read through the boundary and parsed; what is kept is copied out of the file's text. */
async function readAgentFile(
  at: AgentFileAt,
): Promise<{ agent: ParsedAgent | null; problems: AgentFileProblem[]; real: string }> {
  const read = await at.read.file(at.path, { maxBytes: MAX_FILE_BYTES })
  const fail = (message: string) => ({
    agent: null,
    problems: [{ file: at.file, message, skipped: true }],
    real: '',
  })
  if (read.kind === 'missing') return fail('cannot read it: it is gone')
  if (read.kind === 'refused') return fail(`left out: ${read.reason}`)
  if (read.truncated) return fail(`the file is over ${MAX_FILE_BYTES / 1024} KB`)
  const parsed = await parseAgentFile(read.text, at)
  const agent = parsed.agent
  if (!agent) return { ...parsed, real: read.real }
  // A 13+ character substring is a view into the text it was cut from (util/own-string.ts).
  const owned: ParsedAgent = {
    ...agent,
    name: ownString(agent.name),
    description: ownString(agent.description),
    ...(agent.tools ? { tools: agent.tools.map(ownString) } : {}),
    ...(agent.disallowedTools ? { disallowedTools: agent.disallowedTools.map(ownString) } : {}),
    ...(agent.model ? { model: ownString(agent.model) } : {}),
  }
  return { agent: owned, problems: parsed.problems, real: read.real }
}

/**
 * The instructions when the agent runs, from its file as it is then (an edited body is used as edited).
 * It must still be the file read at start (the same real path, through the same read boundary) with
 * the same name, tools and model, which were checked and listed then.
 */
async function instructionsAgain(
  at: AgentFileAt,
  real: string,
  kept: Pick<AgentProfile, 'name' | 'tools' | 'disallowedTools' | 'model'>,
): Promise<string> {
  const now = await readAgentFile(at)
  if (!now.agent) {
    const why = now.problems.find((p) => p.skipped)?.message ?? 'it cannot be read'
    throw new Error(`${at.file}: ${why} (it was read when the session started)`)
  }
  if (now.real !== real)
    throw new Error(
      `${at.file} now leads to ${now.real}, not the file read when the session started (${real}); restart the session to use it`,
    )
  const { agent } = now
  if (
    agent.name !== kept.name ||
    String(agent.tools) !== String(kept.tools) ||
    String(agent.disallowedTools) !== String(kept.disallowedTools) ||
    agent.model !== kept.model
  )
    throw new Error(
      `${at.file}: its name, tools or model changed since the session started; restart the session to use them`,
    )
  return agent.prompt
}

/** One agent file's text → its profile, or the problems that keep it out. Pure but for loading the YAML parser. */
export async function parseAgentFile(
  text: string,
  opts: {
    file: string
    source: Exclude<AgentSource, 'built-in'>
    tools: readonly string[]
    fallbackName: string
  },
): Promise<{ agent: ParsedAgent | null; problems: AgentFileProblem[] }> {
  const { file } = opts
  const problems: AgentFileProblem[] = []
  const fail = (message: string, field?: string) => ({
    agent: null,
    problems: [...problems, { file, ...(field ? { field } : {}), message, skipped: true }],
  })
  if (text.length > MAX_FILE_BYTES) return fail(`the file is over ${MAX_FILE_BYTES / 1024} KB`)
  if (!/^\uFEFF?---\s*$/m.test(text.split('\n', 1)[0] ?? ''))
    return fail('frontmatter line 1: the file must start with a frontmatter block: a line "---"')
  const parsed = await parseFrontmatter(text)
  if (!parsed.ok) return fail(`frontmatter line ${parsed.line}: ${parsed.message}`)
  const data = parsed.data
  const warn = (field: string, message: string) => problems.push({ file, field, message, skipped: false })

  for (const key of Object.keys(data)) {
    if (!KNOWN_FIELDS.includes(key) && !QUIET_FIELDS.has(key))
      warn(key, `not a field agent-tui knows (${KNOWN_FIELDS.join(', ')}); ignored`)
  }
  let name = nameSchema.safeParse(data.name ?? opts.fallbackName)
  if (!name.success && data.name !== undefined && data.name !== null) {
    // As for a skill: a name that is no agent name (`Code Reviewer`) falls back to the file's.
    const fallback = nameSchema.safeParse(opts.fallbackName)
    if (fallback.success)
      warn(
        'name',
        `${JSON.stringify(data.name)} is not an agent name (${firstIssue(name.error)}): it is "${fallback.data}", the file's name`,
      )
    name = fallback
  }
  if (!name.success) return fail(firstIssue(name.error), 'name')
  const builtIn = BUILT_IN_AGENTS.find((a) => a.name === name.data)
  if (builtIn) return fail(`"${name.data}" is a built-in agent; give this one another name`, 'name')
  const description = descriptionSchema.safeParse(data.description)
  if (!description.success) return fail(firstIssue(description.error), 'description')

  const tools = readTools(data.tools, opts.tools)
  if ('message' in tools) return fail(tools.message, 'tools')
  const renamed = renamedNotice(tools.renamed)
  if (renamed) warn('tools', renamed)
  for (const unknown of tools.unknown) warn('tools', `no tool named "${unknown}" in this session; left out`)
  // `tools: []` is an agent without tools (it answers from its prompt), as in Claude Code; a list whose
  // every entry is unknown is a mistake.
  if (tools.names !== null && tools.names.length === 0 && tools.unknown.length > 0)
    return fail('none of the listed tools exists in this session', 'tools')
  const denied = readDisallowed(data.disallowedTools, opts.tools)
  if ('message' in denied) return fail(denied.message, 'disallowedTools')
  const deniedRenamed = renamedNotice(denied.renamed)
  if (deniedRenamed) warn('disallowedTools', deniedRenamed)
  for (const unknown of denied.unknown)
    warn('disallowedTools', `no tool named "${unknown}" in this session; nothing to withhold`)

  let model: string | undefined
  if (data.model !== undefined && data.model !== null) {
    if (typeof data.model !== 'string' || data.model.trim() === '')
      return fail('expected a model id of this endpoint, or "inherit"', 'model')
    const id = data.model.trim()
    if (CLAUDE_TIERS.has(id))
      warn('model', `"${id}" is a Claude Code model tier; this agent uses the caller's model`)
    else if (id !== 'inherit') model = id
  }
  let maxTurns: number | undefined
  if (data.max_turns !== undefined && data.max_turns !== null) {
    const turns = maxTurnsSchema.safeParse(data.max_turns)
    if (!turns.success) return fail(firstIssue(turns.error), 'max_turns')
    maxTurns = turns.data
  }
  const prompt = parsed.body.trim()
  if (prompt === '') return fail("the body (the agent's instructions, after the frontmatter) is empty")
  return {
    agent: {
      name: name.data,
      description: description.data.replace(/\s+/g, ' '),
      source: opts.source,
      file,
      prompt,
      tools: tools.names,
      ...(denied.names.length ? { disallowedTools: denied.names } : {}),
      ...(model ? { model } : {}),
      ...(maxTurns !== undefined ? { maxTurns } : {}),
      readOnly: false,
    },
    problems,
  }
}

/** `tools`: a list or a comma-separated string of tool names; absent or `*`: every tool but Agent. */
function readTools(
  value: FrontmatterValue | undefined,
  known: readonly string[],
): { names: string[] | null; unknown: string[]; renamed: Array<[string, string]> } | { message: string } {
  if (value === undefined || value === null) return { names: null, unknown: [], renamed: [] }
  let list: string[]
  const wrong = { message: 'expected a list of tool names, e.g. [Read, Grep, Glob] or "Read, Grep, Glob"' }
  // Commas inside parentheses belong to the entry: Claude Code's `Agent(a, b)` names the agents it may start.
  if (typeof value === 'string') list = splitRuleList(value)
  else if (Array.isArray(value) && value.every((t) => typeof t === 'string')) list = value as string[]
  else return wrong
  const names = list.map((t) => t.trim()).filter(Boolean)
  if (names.includes('*')) return { names: null, unknown: [], renamed: [] }
  const out: string[] = []
  const unknown: string[] = []
  const renamed: Array<[string, string]> = []
  for (const raw of names) {
    // `Bash(git *)`: Claude Code's per-command form; the tool is what matters here.
    const bare = raw.replace(/\(.*\)$/s, '')
    const name = agentToolName(bare, known)
    if (name === 'Agent' || known.includes(name)) {
      if (name !== bare && !renamed.some(([from]) => from === bare)) renamed.push([bare, name])
      if (!out.includes(name)) out.push(name)
    } else unknown.push(raw)
  }
  return { names: out, unknown, renamed }
}

/**
 * `disallowedTools`: the same forms and Claude Code names as `tools`, withheld from what `tools` gives.
 * `*` withholds every tool; an `mcp__…` entry is kept as it is (child-run withholds the MCP servers).
 */
function readDisallowed(
  value: FrontmatterValue | undefined,
  known: readonly string[],
): { names: string[]; unknown: string[]; renamed: Array<[string, string]> } | { message: string } {
  if (value === undefined || value === null) return { names: [], unknown: [], renamed: [] }
  const read = readTools(value, known)
  if ('message' in read) return read
  const mcp = read.unknown.filter((n) => n.startsWith('mcp__'))
  return {
    names: [...(read.names ?? [...known, 'Agent', 'mcp__*']), ...mcp],
    unknown: read.unknown.filter((n) => !n.startsWith('mcp__')),
    renamed: read.renamed,
  }
}

function firstIssue(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'invalid value'
}
