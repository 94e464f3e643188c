import type { Mode } from '../../store/domain.js'
import type { InstructionReader } from '../../tools/instruction-file.js'
import { MASKING_NOTE } from '../context/masking.js'
import {
  type InstructionSection,
  type LoadedInstructions,
  loadInstructions,
  skipNotice,
} from './instructions.js'
import { instructionRoots } from './project-memory.js'

export interface PromptContext {
  workspace: string
  platform: string
  shell: string
  model: string
  date: string
  gitBranch?: string
  mode: Mode
  /** Directories added with --add-dir / additionalDirectories. */
  additionalDirs?: readonly string[]
  /** Observation masking is on: tell the model once how to restore a masked result. */
  masking?: boolean
  /** Bash runs in the OS sandbox (when the sandbox turns out to be available). */
  sandbox?: { network: boolean }
  /** Reads the instruction files through the read boundary (what a Read of them would be told). */
  read: InstructionReader
  /**
   * Claude Code's places, when they are read: `~/.claude/CLAUDE.md` (read with `readUser`),
   * `.claude/CLAUDE.md`, `CLAUDE.local.md`, and the `@path` imports of CLAUDE.md files.
   */
  claude?: { userMemory: string; readUser: InstructionReader; home: string }
  /** Real paths of the files read, filled in (nested CLAUDE.md files already in the prompt are not announced). */
  seen?: Set<string>
  /** A file left out, and why (a start-up notice). */
  report?(text: string): void
  /** What was read and left out, for `/status`. */
  loaded?(instructions: LoadedInstructions): void
  /**
   * When an instruction file last changed while commands or edits ran unasked (ms), if it did: it is
   * read all the same (it is text, not permissions), and a start-up notice names it.
   */
  changedUnasked?(path: string): number | undefined
  /** The compact prompt of a small-window model (the model profile's promptVariant); default full. */
  variant?: 'full' | 'compact'
}

const BASE = `You are agent-tui, a coding agent working in the user's terminal and repository. You help with software
engineering tasks: reading and changing code, running commands, explaining and fixing problems.

How to work:
- Use the tools to look before you act: Read files before editing them, search with Grep and Glob.
- Make focused changes with Edit (or Write for new files); keep the project's style.
- Run the project's tests or build with Bash to check your work when that is cheap and relevant.
- Tool results may be truncated; large outputs are stored in a file whose path is given — Read it with offset/limit.
- A tool error comes back as {"error": {category, message, hint}}: read it and change approach; never repeat an
  identical failing call.
- Some calls need the user's permission; a denial is final for that call — adapt or ask.
- Be concise. When you finish, say what you changed and anything left to do.`

/**
 * BASE for a small window (docs/context.md#small-windows-and-local-models): the same rules in a third of
 * the bytes; the tool descriptions say the rest.
 */
const COMPACT_BASE = `You are agent-tui, a coding agent in the user's terminal and repository.
- Look before you act: Read files before editing, search with Grep and Glob. Make focused edits.
- Check your work with Bash (tests, build) when cheap.
- A tool error is {"error": {…}}: change approach, never repeat a failing call. A denied call stays denied.
- Be concise; at the end say what you changed.`

/** The pieces every prompt of a session shares: the environment block and the project's instruction files. */
export interface PromptParts {
  environment: string
  instructions: string[]
  /** How to restore a masked result, when observation masking is on (added to every agent's instructions). */
  maskingNote?: string
  /** The main prompt is the compact one (a small-window model). */
  compact?: boolean
}

/**
 * Assembled once per session and never changed afterwards (no clock, no counters), so providers can
 * cache the prefix. Mode changes and reminders are appended as messages instead.
 */
export async function buildSystemPrompt(ctx: PromptContext): Promise<string> {
  return mainPrompt(await buildPromptParts(ctx))
}

/** The main session's prompt; a profile other than `build` adds its instructions at the end. */
export function mainPrompt(parts: PromptParts, profile?: { name: string; prompt: string }): string {
  const sections = [
    withNote(parts.compact ? COMPACT_BASE : BASE, parts),
    parts.environment,
    ...parts.instructions,
  ]
  if (profile?.prompt) sections.push(`# Agent profile: ${profile.name}\n${profile.prompt}`)
  return sections.join('\n\n')
}

/** A subagent's prompt: its own instructions first, then the same environment and project instructions. */
export function subagentPrompt(parts: PromptParts, profile: { prompt: string }): string {
  return [withNote(profile.prompt, parts), parts.environment, ...parts.instructions].join('\n\n')
}

function withNote(text: string, parts: PromptParts): string {
  return parts.maskingNote ? `${text}\n${parts.maskingNote}` : text
}

export async function buildPromptParts(ctx: PromptContext): Promise<PromptParts> {
  const environment = [
    '# Environment',
    `Working directory: ${ctx.workspace}`,
    ...(ctx.additionalDirs?.length
      ? [
          `Additional directories (readable and editable like the working directory): ${ctx.additionalDirs.join(', ')}`,
        ]
      : []),
    `Platform: ${ctx.platform}; shell: ${ctx.shell}`,
    `Session started: ${ctx.date}`,
    ctx.gitBranch ? `Git branch at start: ${ctx.gitBranch}` : 'Not a git repository (or no branch).',
    `Permission mode at start: ${ctx.mode}`,
    ...(ctx.sandbox ? [sandboxLine(ctx.sandbox.network, !!ctx.additionalDirs?.length, ctx.variant)] : []),
  ].join('\n')
  // Only the working directory's files (docs/configuration.md#project-instructions), not a parent's;
  // CLAUDE.md files below it come later, as messages, when the agent first works there.
  const { roots, label } = instructionRoots(ctx.workspace, ctx.read, ctx.claude)
  const loaded = await loadInstructions(roots, {
    home: ctx.claude?.home ?? '',
    label,
    ...(ctx.seen ? { seen: ctx.seen } : {}),
  })
  for (const skip of loaded.skipped) if (worthANotice(skip)) ctx.report?.(skipNotice(skip))
  // A sandboxed command may create one nobody was asked about (a missing one cannot be reserved).
  for (const section of loaded.sections) {
    const at = ctx.changedUnasked?.(section.path)
    if (at !== undefined) ctx.report?.(unaskedNotice(section.label, at))
  }
  ctx.loaded?.(loaded)
  const instructions = loaded.sections.map(sectionText)
  return {
    environment,
    instructions,
    ...(ctx.masking ? { maskingNote: MASKING_NOTE } : {}),
    ...(ctx.variant === 'compact' ? { compact: true } : {}),
  }
}

function sandboxLine(network: boolean, added: boolean, variant: PromptContext['variant']): string {
  const writable = `only the working directory${added ? ', the additional directories' : ''}, /tmp and the session outputs are writable`
  if (variant === 'compact')
    return `Bash runs in a sandbox when available: ${writable}${network ? '' : ', no network'}; if a command needs more, ask the user to run it (\`! <command>\`).`
  return (
    `Bash commands run in an OS sandbox when it is available: ${writable}; .git/, .agent-tui/, .claude/ and .mcp.json are read-only at any depth, AGENTS.md and CLAUDE.md at the top${network ? '' : ', and there is no network'}. ` +
    'A command that needs more fails with the real error; ask the user to run it outside the sandbox ' +
    '(typing `! <command>` at the prompt does).'
  )
}

/** A missing file or import, or one already in, is not worth a notice (`/status` lists them). */
function worthANotice(skip: LoadedInstructions['skipped'][number]): boolean {
  return skip.reason !== 'missing' && skip.reason !== 'duplicate'
}

/** One file's section of the prompt, headed by where it comes from. */
export function sectionText(section: InstructionSection): string {
  const head = section.importedBy
    ? `# Instructions from ${section.path} (imported by ${section.importedBy})`
    : `# ${section.root.label.startsWith('~') ? 'User' : 'Project'} instructions from ${section.path}`
  return `${head}\n${section.text}`
}

/** `sub/AGENTS.md changed at 14:03:10 while …`: the start-up notice for an instruction file written unasked. */
export function unaskedNotice(file: string, at: number): string {
  const when = new Date(at)
  return `${file} changed on ${when.toISOString().slice(0, 10)} at ${when.toTimeString().slice(0, 8)} while commands or edits ran unasked (a sandboxed command or an auto-mode edit nobody answered for); it is in the model's instructions as it is: read it if you did not write it`
}
