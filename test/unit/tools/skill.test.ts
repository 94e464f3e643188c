import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSkillTool, describeSkills, type SkillEntry } from '../../../source/tools/skill.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'
import { testReader } from '../../support/instruction-reader.ts'

let env: TestEnv
let pdf: SkillEntry
beforeEach(async () => {
  env = await createTestEnv()
  const dir = join(env.root, 'skills', 'pdf')
  await mkdir(join(dir, 'scripts'), { recursive: true })
  await writeFile(
    join(dir, 'SKILL.md'),
    '---\nname: pdf\ndescription: Extract text from PDFs\n---\n# PDF\n\nRun scripts/extract.py <file>.\n',
  )
  await writeFile(join(dir, 'scripts', 'extract.py'), 'print(1)\n')
  await writeFile(join(dir, 'reference.md'), 'ref\n')
  pdf = { name: 'pdf', description: 'Extract text from PDFs', dir, path: join(dir, 'SKILL.md') }
})
afterEach(async () => {
  await env.cleanup()
})

describe('Skill', () => {
  it("lists the session's skills in its description, once, escaped", () => {
    const text = describeSkills([pdf, { ...pdf, name: 'xml', description: 'Edit <xml> & co' }], false)
    expect(text).toContain('<available_skills>\n<skill name="pdf">Extract text from PDFs</skill>\n')
    expect(text).toContain('<skill name="xml">Edit &lt;xml&gt; &amp; co</skill>')
    expect(text).not.toContain('announced later')
    expect(describeSkills([], true)).toContain('No skills are available yet.')
    expect(describeSkills([], true)).toContain(
      'Skills announced later in this conversation are loaded the same way.',
    )
  })

  it("loads a skill's instructions without the frontmatter, with its folder and its files", async () => {
    const tool = createSkillTool({
      catalog: { find: (n) => (n === 'pdf' ? pdf : undefined), list: () => [pdf] },
      offered: [pdf],
      more: false,
      read: (skill) => testReader(env.workspace, [env.root]).file(skill.path),
    })
    expect(tool.permissionTarget({ skill: 'pdf' }, env.ctx)).toEqual({
      kind: 'path',
      path: pdf.path,
      access: 'read',
    })
    const result = await run(tool, { skill: 'pdf' }, env.ctx)
    expect(result.forModel).toBe(
      [
        'Skill "pdf" loaded. Follow its instructions below.',
        `Its folder is ${pdf.dir}; read the files it mentions from there (paths are relative to it).`,
        'Files: reference.md, scripts/extract.py',
        '',
        '# PDF\n\nRun scripts/extract.py <file>.',
      ].join('\n'),
    )
  })

  it('reads SKILL.md through the read boundary: one that became a link outside is refused', async () => {
    await writeFile(join(env.root, 'id_rsa'), 'PRIVATE KEY\n')
    await rm(pdf.path)
    await symlink(join(env.root, 'id_rsa'), pdf.path)
    const tool = createSkillTool({
      catalog: { find: () => pdf, list: () => [pdf] },
      offered: [pdf],
      more: false,
      read: (skill) => testReader(env.workspace, [env.root]).file(skill.path),
    })
    const error = await runError(tool, { skill: 'pdf' }, env.ctx)
    expect(error.category).toBe('permission')
    expect(error.message).toMatch(/SKILL\.md was left out: reads of secrets files \(id_rsa\) need consent/)
    expect(error.message).not.toContain('PRIVATE KEY')
  })

  it('names the skills there are when asked for one that is not', async () => {
    const tool = createSkillTool({
      catalog: { find: () => undefined, list: () => [pdf] },
      offered: [pdf],
      more: false,
      read: (skill) => testReader(env.workspace, [env.root]).file(skill.path),
    })
    const error = await runError(tool, { skill: 'docx' }, env.ctx)
    expect(error.category).toBe('not_found')
    expect(error.message).toBe('There is no skill "docx".')
    expect(error.hint).toBe('Skills: pdf')
  })
})
