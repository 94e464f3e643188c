import { readdir, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { InstructionReader } from '../tools/instruction-file.js'
import { argumentHint } from './command-files.js'
import { parseFrontmatter } from './frontmatter.js'
import { ownString } from '../util/own-string.js'
import type { ExtensionProblem, ExtensionScope, SkillDefinition } from './types.js'

/**
 * Skills in the Agent Skills format (Claude Code's): each folder of a skills folder that holds a
 * `SKILL.md` is one skill. Its frontmatter's `name` (lower-case letters, digits and hyphens, the folder's
 * name) and `description` (what it does and when to use it) are what the model is offered; the body and
 * the folder's other files are read only when the model loads the skill. As in Claude Code, a name that
 * is no skill name (`PDF Tools`) is the folder's, a missing description the body's first line, and a long
 * description is kept whole (the Skill tool's listing shortens it). A skill that cannot be used is
 * reported with the file and the field, and left out.
 */

export interface LoadedSkills {
  skills: SkillDefinition[]
  problems: ExtensionProblem[]
}

/** Only the frontmatter is needed now; a SKILL.md whose frontmatter is not in its first 64 KB is not one. */
const HEAD_BYTES = 64 * 1024
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/
const MAX_NAME = 64

export async function loadSkillDir(opts: {
  dir: string
  scope: ExtensionScope
  label(path: string): string
  /**
   * Reads a SKILL.md through the read boundary: the skill's folder becomes readable without asking, so a
   * SKILL.md that really lies outside the folders skills may come from (or is a secret) is left out.
   */
  read: InstructionReader
}): Promise<LoadedSkills> {
  const problems: ExtensionProblem[] = []
  const skills: SkillDefinition[] = []
  let folders: string[]
  try {
    folders = (await readdir(opts.dir)).filter((n) => !n.startsWith('.')).sort()
  } catch {
    return { skills, problems }
  }
  for (const folder of folders) {
    const path = join(opts.dir, folder, 'SKILL.md')
    const info = await stat(path).catch(() => null)
    if (!info?.isFile()) continue
    const skill = await readSkill(
      { path, folder, file: opts.label(path), scope: opts.scope, read: opts.read },
      problems,
    )
    if (!skill) continue
    const clash = skills.find((s) => s.name === skill.name)
    if (clash) {
      problems.push({
        file: skill.file,
        field: 'name',
        message: `a skill named "${skill.name}" is already defined by ${clash.file}; this one is left out`,
        skipped: true,
      })
      continue
    }
    skills.push(skill)
  }
  return { skills, problems }
}

async function readSkill(
  at: { path: string; folder: string; file: string; scope: ExtensionScope; read: InstructionReader },
  problems: ExtensionProblem[],
): Promise<SkillDefinition | null> {
  const { file } = at
  const skip = (message: string, field?: string) => {
    problems.push({ file, ...(field ? { field } : {}), message, skipped: true })
    return null
  }
  const read = await at.read.file(at.path, { maxBytes: HEAD_BYTES })
  if (read.kind === 'missing') return skip('cannot be read: it is gone')
  if (read.kind === 'refused') return skip(`left out: ${read.reason}`)
  const head = read.text
  const parsed = await parseFrontmatter(head)
  if (!parsed.ok) return skip(`frontmatter, line ${parsed.line}: ${parsed.message}`)
  if (!head.replace(/^\uFEFF/, '').startsWith('---')) {
    return skip('a SKILL.md starts with a frontmatter block ("---") giving name and description')
  }
  const note = (message: string, field?: string) =>
    problems.push({ file, ...(field ? { field } : {}), message, skipped: false })
  const { name: given, description: written } = parsed.data
  const name = skillName(given, at.folder)
  if (name === null) {
    return skip(
      `neither "${String(given ?? '')}" nor its folder's name "${at.folder}" is a skill name (lower-case letters, digits and single hyphens, at most ${MAX_NAME} characters)`,
      'name',
    )
  }
  // No name at all is the folder's, as in Claude Code: nothing to say.
  if (given !== undefined && given !== null && name !== given) {
    note(
      `${JSON.stringify(given)} is not a skill name (lower-case letters, digits and single hyphens): it is offered as "${name}", its folder's name`,
      'name',
    )
  } else if (given !== undefined && given !== null && name !== at.folder) {
    note(`"${name}" differs from its folder's name "${at.folder}"; it is offered as "${name}"`, 'name')
  }
  let description = typeof written === 'string' ? written.replace(/\s+/g, ' ').trim() : ''
  if (written !== undefined && written !== null && typeof written !== 'string')
    return skip('expected text saying what the skill does and when to use it', 'description')
  if (description === '') {
    description = firstLine(parsed.body)
    if (description === '') return skip('missing: say what the skill does and when to use it', 'description')
    note(`no description: the model is offered its first line, "${description}"`, 'description')
  }
  // Its files become readable without asking: the folder itself must pass the boundary too.
  const folder = await at.read.folder(dirname(at.path))
  if (folder.kind === 'refused') return skip(`left out: its folder: ${folder.reason}`)
  if (folder.kind === 'missing') return skip('cannot be read: it is gone')
  const dir = folder.real
  const hint = argumentHint(parsed.raw['argument-hint'], parsed.data['argument-hint'])
  // Copied out of the file's text, which a kept substring would keep alive whole (util/own-string.ts).
  return {
    name: ownString(name),
    description: ownString(description),
    ...(hint ? { argumentHint: ownString(hint) } : {}),
    scope: at.scope,
    dir,
    path: join(dir, 'SKILL.md'),
    file,
  }
}

/** The frontmatter's name when it is a skill name, else the folder's (lower-cased, blanks as hyphens). */
function skillName(given: unknown, folder: string): string | null {
  if (typeof given === 'string' && given.length <= MAX_NAME && NAME.test(given)) return given
  const slug = folder
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  return slug.length > 0 && slug.length <= MAX_NAME && NAME.test(slug) ? slug : null
}

function firstLine(body: string): string {
  const line = (body.split('\n').find((l) => l.trim() !== '') ?? '').replace(/^#+\s*/, '').trim()
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}
