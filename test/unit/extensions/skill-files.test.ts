import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadSkillDir } from '../../../source/extensions/skill-files.js'
import { testReader } from '../../support/instruction-reader.ts'

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
  return loadSkillDir({ dir, scope: 'user', label: (p) => relative(dir, p), read: testReader() })
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

  it('leaves out a skill whose folder or SKILL.md really lies outside the folders skills come from', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'agent-tui-skills-outside-')))
    try {
      await mkdir(join(outside, 'away'))
      await writeFile(join(outside, 'away', 'SKILL.md'), '---\nname: away\ndescription: d\n---\n')
      await writeFile(join(outside, 'SKILL.md'), '---\nname: linked\ndescription: d\n---\n')
      await mkdir(join(dir, 'skills', 'linked'), { recursive: true })
      await symlink(join(outside, 'away'), join(dir, 'skills', 'away'))
      await symlink(join(outside, 'SKILL.md'), join(dir, 'skills', 'linked', 'SKILL.md'))
      const loaded = await loadSkillDir({
        dir: join(dir, 'skills'),
        scope: 'project',
        label: (p) => relative(dir, p),
        read: testReader(dir),
      })
      expect(loaded.skills).toEqual([])
      expect(loaded.problems.map((p) => [p.file, p.skipped])).toEqual([
        ['skills/away/SKILL.md', true],
        ['skills/linked/SKILL.md', true],
      ])
      for (const problem of loaded.problems)
        expect(problem.message).toMatch(/^left out: reads outside the workspace/)
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })
})
