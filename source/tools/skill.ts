import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import type { InstructionFile } from './instruction-file.js'
import { closestNames, fitListing } from './listing.js'
import { defineTool, type Tool, ToolError, type ToolSuccess } from './types.js'

/** One skill as the tool sees it (loaded from a folder with a SKILL.md by the session). */
export interface SkillEntry {
  name: string
  description: string
  /** The skill's folder (absolute): its files may be read without asking. */
  dir: string
  /** Its SKILL.md (absolute). */
  path: string
  /** Whose it is: the user's skills may come from their config dir, the project's only from the workspace. */
  scope?: 'user' | 'project'
}

/** The skills the model may load now: the session adds a project's once its folder is trusted. */
export interface SkillCatalog {
  find(name: string): SkillEntry | undefined
  list(): readonly SkillEntry[]
}

/** A SKILL.md body beyond this is cut (the rest stays readable with Read). */
const MAX_BODY_CHARS = 100_000
const MAX_LISTED_FILES = 40
/**
 * The most bytes the description takes, however many skills there are: hundreds of skills list with one
 * short line each, then by name, then as a count (each still loads by name). Sent with every request.
 * 7,200 with the Agent tool's: a 300-item collection then keeps the first request's definitions within 40 kB.
 */
export const SKILL_DESCRIPTION_BUDGET = 7200

const schema = z.strictObject({
  skill: z.string().min(1).describe('The name of the skill to load, as listed in this description'),
})

export type SkillArgs = z.infer<typeof schema>

/**
 * The Skill tool. Its description lists the skills `offered` at session start, once: the definitions
 * sent to the model stay byte-stable, so a skill that becomes available later is announced in the
 * conversation instead (`more` says that can happen), and loaded the same way.
 */
export function createSkillTool(opts: {
  catalog: SkillCatalog
  offered: readonly SkillEntry[]
  more: boolean
  /** Reads a skill's SKILL.md through the read boundary (see instruction-file.ts). */
  read(skill: SkillEntry): Promise<InstructionFile>
}): Tool<SkillArgs> {
  const { catalog } = opts
  return defineTool<SkillArgs>({
    name: 'Skill',
    description: describeSkills(opts.offered, opts.more),
    schema,
    risk: 'read',
    isReadOnly: () => true,
    permissionTarget: (args) => {
      const skill = catalog.find(args.skill)
      return skill ? { kind: 'path', path: skill.path, access: 'read' } : { kind: 'none' }
    },
    preview: async () => ({ kind: 'none' }),
    summarize: (args) => `Skill ${args.skill}`,
    async execute(args): Promise<ToolSuccess> {
      const skill = catalog.find(args.skill)
      if (!skill) {
        const names = catalog.list().map((s) => s.name)
        throw new ToolError('not_found', `There is no skill "${args.skill}".`, {
          hint: skillsHint(args.skill, names),
        })
      }
      const loaded = await loadSkillText(skill, opts.read)
      return {
        forModel: loaded.text,
        display: { kind: 'file', path: skill.path, lines: loaded.lines },
      }
    },
  })
}

/**
 * A skill's instructions in three pieces: the lines about its folder and files, its SKILL.md body (cut at
 * MAX_BODY_CHARS), and the note that it was cut. The Skill tool sends them as they are; `/name` puts the
 * arguments into the body and runs its `` !`…` `` first, as a command's (app/session/skills.ts).
 */
export async function loadSkillPieces(
  skill: SkillEntry,
  read: (skill: SkillEntry) => Promise<InstructionFile>,
): Promise<{ head: string; body: string; tail: string; lines: number }> {
  const file = await read(skill)
  if (file.kind === 'missing') throw new ToolError('not_found', `${skill.path} is gone.`)
  if (file.kind === 'refused') throw new ToolError('permission', `${skill.path} was left out: ${file.reason}`)
  const body = withoutFrontmatter(file.text).trim()
  const cut = body.length > MAX_BODY_CHARS
  const files = await listFiles(skill.dir)
  const head = [
    `Skill "${skill.name}" loaded. Follow its instructions below.`,
    `Its folder is ${skill.dir}; read the files it mentions from there (paths are relative to it).`,
    ...(files.length ? [`Files: ${files.join(', ')}`] : []),
  ]
  return {
    head: `${head.join('\n')}\n\n`,
    body: cut ? body.slice(0, MAX_BODY_CHARS) : body,
    tail: cut
      ? `\n\n[SKILL.md continues past ${MAX_BODY_CHARS} characters: Read ${skill.path} for the rest]`
      : '',
    lines: body.split('\n').length,
  }
}

/** A skill's instructions as the model gets them when it loads the skill (the Skill tool): its folder, its files, its body. */
export async function loadSkillText(
  skill: SkillEntry,
  read: (skill: SkillEntry) => Promise<InstructionFile>,
): Promise<{ text: string; lines: number }> {
  const { head, body, tail, lines } = await loadSkillPieces(skill, read)
  return { text: head + body + tail, lines }
}

/**
 * The tool's description: what a skill is, how to use one, and the skills of this session, within
 * SKILL_DESCRIPTION_BUDGET bytes (one line each while they fit; then names; then a count).
 */
export function describeSkills(offered: readonly SkillEntry[], more: boolean): string {
  const intro = [
    'Loads a skill: instructions (often with scripts, templates or reference files) for a kind of task.',
    "When the user's request matches a skill's description, load that skill before you start and follow it.",
    'Pass the skill\'s name (e.g. skill: "pdf"); the result holds its instructions and its folder, whose files you may Read.',
    'Do not load a skill that is already loaded in this conversation.',
  ]
  const later = more ? ['Skills announced later in this conversation are loaded the same way.'] : []
  if (offered.length === 0) return [...intro, '', 'No skills are available yet.', ...later].join('\n')
  const tail = (namesOnly: string[], hidden: number) => [
    ...(namesOnly.length ? [`More skills, by name (load one the same way): ${namesOnly.join(', ')}`] : []),
    ...(hidden
      ? [
          `${hidden} more skills are not listed: call Skill with the name you expect; a name that is not there is answered with the closest names.`,
        ]
      : []),
  ]
  const frame = (lines: string[], namesOnly: string[], hidden: number) =>
    [
      ...intro,
      '',
      '<available_skills>',
      ...lines,
      '</available_skills>',
      ...tail(namesOnly, hidden),
      ...later,
    ].join('\n')
  const listing = fitListing(offered, SKILL_DESCRIPTION_BUDGET, {
    line: (s, description) => `<skill name="${s.name}">${escapeXml(description)}</skill>`,
    text: (l) => frame(l.lines, l.namesOnly, l.hidden),
  })
  return frame(listing.lines, listing.namesOnly, listing.hidden)
}

/** For a name that is not there: the closest skills, and how many there are. */
function skillsHint(wanted: string, names: readonly string[]): string {
  if (names.length === 0) return 'No skills are available in this session.'
  if (names.length <= 40) return `Skills: ${names.join(', ')}`
  const close = closestNames(wanted, names)
  return `${close.length ? `Closest: ${close.join(', ')}. ` : ''}${names.length} skills in all; call Skill with one of their names.`
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function withoutFrontmatter(text: string): string {
  const m = /^\uFEFF?---\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text)
  return m ? text.slice(m[0].length) : text
}

/** The folder's files (one level of subfolders), SKILL.md aside, for the model to know what it may Read. */
async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = []
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (out.length >= MAX_LISTED_FILES) break
    if (entry.name.startsWith('.') || entry.name === 'SKILL.md') continue
    if (!entry.isDirectory()) {
      out.push(entry.name)
      continue
    }
    const inner = await readdir(join(dir, entry.name)).catch(() => [])
    for (const name of inner.sort()) {
      if (out.length >= MAX_LISTED_FILES) break
      if (!name.startsWith('.')) out.push(`${entry.name}/${name}`)
    }
  }
  return out
}
