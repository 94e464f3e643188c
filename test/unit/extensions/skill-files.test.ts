import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadSkillDir } from '../../../source/extensions/skill-files.js'

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-skills-')))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function skills(map: Record<string, string>) {
  for (const [folder, text] of Object.entries(map)) {
    await mkdir(join(dir, folder), { recursive: true })
    await writeFile(join(dir, folder, 'SKILL.md'), text)
  }
  return loadSkillDir({ dir, scope: 'user', label: (p) => relative(dir, p) })
}

describe('loadSkillDir', () => {
  it('offers each folder with a SKILL.md by its name and description (metadata and all)', async () => {
    const { skills: found, problems } = await skills({
      pdf: '---\nname: pdf\ndescription: >\n  Extract text and tables\n  from PDF files.\nlicense: MIT\nmetadata:\n  author: me\n---\n# PDF\nUse pdftotext.',
    })
    expect(problems).toEqual([])
    expect(found).toEqual([
      {
        name: 'pdf',
        description: 'Extract text and tables from PDF files.',
        scope: 'user',
        dir: join(dir, 'pdf'),
        path: join(dir, 'pdf', 'SKILL.md'),
        file: 'pdf/SKILL.md',
      },
    ])
  })

  it.each([
    ['no frontmatter', 'just text', undefined, 'starts with a frontmatter block'],
    ['no name', '---\ndescription: d\n---\n', 'name', 'missing'],
    ['a name with capitals', '---\nname: My Skill\ndescription: d\n---\n', 'name', 'is not a skill name'],
    ['no description', '---\nname: broken\n---\n', 'description', 'missing'],
  ])('leaves out a skill with %s, naming the file and the field', async (_name, text, field, message) => {
    const { skills: found, problems } = await skills({
      broken: text,
      ok: '---\nname: ok\ndescription: fine\n---\n',
    })
    expect(found.map((s) => s.name)).toEqual(['ok'])
    expect(problems).toEqual([expect.objectContaining({ file: 'broken/SKILL.md', skipped: true })])
    expect(problems[0]?.field).toBe(field)
    expect(problems[0]?.message).toContain(message)
  })

  it("warns when the name differs from the folder's, and offers it by its name", async () => {
    const { skills: found, problems } = await skills({ folder: '---\nname: other\ndescription: d\n---\n' })
    expect(found.map((s) => s.name)).toEqual(['other'])
    expect(problems).toEqual([expect.objectContaining({ field: 'name', skipped: false })])
  })
})
