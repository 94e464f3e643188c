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
    ['no description and no body', '---\nname: broken\n---\n', 'description', 'missing'],
    [
      'a description that is a list',
      '---\nname: broken\ndescription: [a]\n---\n',
      'description',
      'expected text',
    ],
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

  it("offers a skill without a name by its folder's name, as Claude Code does", async () => {
    const { skills: found, problems } = await skills({ 'pdf-tools': '---\ndescription: d\n---\n' })
    expect(found.map((s) => s.name)).toEqual(['pdf-tools'])
    expect(problems).toEqual([])
  })

  it.each([
    [
      'a Title Case name with spaces',
      '---\nname: PDF Tools\ndescription: d\n---\n',
      'pdf-tools',
      '"PDF Tools" is not a skill name (lower-case letters, digits and single hyphens): it is offered as "pdf-tools", its folder\'s name',
    ],
  ])("offers a skill with %s by its folder's name, with a notice", async (_label, text, name, message) => {
    const { skills: found, problems } = await skills({ 'pdf-tools': text })
    expect(found.map((s) => s.name)).toEqual([name])
    expect(problems).toEqual([{ file: 'pdf-tools/SKILL.md', field: 'name', message, skipped: false }])
  })

  it('a folder name that is no skill name either is lower-cased with hyphens', async () => {
    const { skills: found } = await skills({
      'Writing Rules': '---\nname: Writing Hookify Rules\ndescription: d\n---\n',
    })
    expect(found.map((s) => s.name)).toEqual(['writing-rules'])
  })

  it('keeps a long description whole (over 1,024 characters) and takes a missing one from the body', async () => {
    const long = `Reference for the API. ${'TRIGGER when the code imports the SDK; '.repeat(40)}`
    const { skills: found, problems } = await skills({
      long: `---\nname: long\ndescription: |-\n  ${long}\n  SKIP otherwise.\n---\n`,
      plain: '---\nname: plain\n---\n# Make changelogs\nSteps…',
    })
    expect(found[0]?.description).toBe(`${long.trim()} SKIP otherwise.`)
    expect(found[0]?.description.length).toBeGreaterThan(1024)
    expect(found[1]?.description).toBe('Make changelogs')
    expect(problems).toEqual([
      expect.objectContaining({ file: 'plain/SKILL.md', field: 'description', skipped: false }),
    ])
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
