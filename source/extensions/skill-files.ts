import { readdir, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { InstructionReader } from '../tools/instruction-file.js'
import { parseFrontmatter } from './frontmatter.js'
import type { ExtensionProblem, ExtensionScope, SkillDefinition } from './types.js'

/**
 * Skills in the Agent Skills format (Claude Code's): each folder of a skills folder that holds a
 * `SKILL.md` is one skill. Its frontmatter's `name` (lower-case letters, digits and hyphens, the folder's
 * name) and `description` (what it does and when to use it) are what the model is offered; the body and
 * the folder's other files are read only when the model loads the skill. A skill that cannot be used is
 * reported with the file and the field, and left out.
 */

export interface LoadedSkills {
  skills: SkillDefinition[]
  problems: ExtensionProblem[]
}

const MAX_SKILLS = 100
/** Only the frontmatter is needed now; a SKILL.md whose frontmatter is not in its first 64 KB is not one. */
const HEAD_BYTES = 64 * 1024
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/
const MAX_NAME = 64
const MAX_DESCRIPTION = 1024

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
    if (skills.length >= MAX_SKILLS) {
      problems.push({
        file: opts.label(opts.dir),
        message: `only the first ${MAX_SKILLS} skills are read`,
        skipped: true,
      })
      break
    }
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
  const parsed = parseFrontmatter(head)
  if (!parsed.ok) return skip(`frontmatter, line ${parsed.line}: ${parsed.message}`)
  if (!head.replace(/^\uFEFF/, '').startsWith('---')) {
    return skip('a SKILL.md starts with a frontmatter block ("---") giving name and description')
  }
  for (const field of ['name', 'description'] as const) {
    if (parsed.invalid[field]) return skip(parsed.invalid[field], field)
  }
  const { name, description } = parsed.data
  if (typeof name !== 'string' || name.trim() === '') {
    return skip(`missing: give the skill a name (its folder's, "${at.folder}")`, 'name')
  }
  if (name.length > MAX_NAME || !NAME.test(name)) {
    return skip(
      `"${name}" is not a skill name: lower-case letters, digits and single hyphens, at most ${MAX_NAME} characters`,
      'name',
    )
  }
  if (typeof description !== 'string' || description.trim() === '') {
    return skip('missing: say what the skill does and when to use it', 'description')
  }
  if (description.length > MAX_DESCRIPTION) {
    return skip(`${description.length} characters; at most ${MAX_DESCRIPTION}`, 'description')
  }
  if (name !== at.folder) {
    problems.push({
      file,
      field: 'name',
      message: `"${name}" differs from its folder's name "${at.folder}"; it is offered as "${name}"`,
      skipped: false,
    })
  }
  // Its files become readable without asking: the folder itself must pass the boundary too.
  const folder = await at.read.folder(dirname(at.path))
  if (folder.kind === 'refused') return skip(`left out: its folder: ${folder.reason}`)
  if (folder.kind === 'missing') return skip('cannot be read: it is gone')
  const dir = folder.real
  return {
    name,
    description: description.replace(/\s+/g, ' ').trim(),
    scope: at.scope,
    dir,
    path: join(dir, 'SKILL.md'),
    file,
  }
}
