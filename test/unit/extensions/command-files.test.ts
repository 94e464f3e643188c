import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadCommandDir } from '../../../source/extensions/command-files.js'
import { testReader } from '../../support/instruction-reader.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-commands-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function files(map: Record<string, string>) {
  for (const [path, text] of Object.entries(map)) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  return loadCommandDir({ dir, scope: 'project', label: (p) => relative(dir, p), read: testReader() })
}

describe('loadCommandDir', () => {
  it("reads Claude Code's format: name from the file, subfolders as groups, frontmatter fields", async () => {
    const { commands, problems } = await files({
      'review.md':
        '---\ndescription: Review the changes\nargument-hint: [path] [focus]\nallowed-tools: Read, Bash(git diff *), Bash(git log:*)\nmodel: small-model\n---\n\nReview $ARGUMENTS\n',
      'frontend/component.md': '# Make a component\n\nMake $1.\n',
    })
    expect(problems).toEqual([])
    expect(commands).toEqual([
      {
        name: 'review',
        scope: 'project',
        namespace: [],
        description: 'Review the changes',
        argumentHint: '[path] [focus]',
        allowedTools: ['Read', 'Bash(git diff *)', 'Bash(git log:*)'],
        model: 'small-model',
        readBody: expect.any(Function),
        file: 'review.md',
      },
      {
        name: 'component',
        scope: 'project',
        namespace: ['frontend'],
        description: 'Make a component',
        allowedTools: [],
        readBody: expect.any(Function),
        file: 'frontend/component.md',
      },
    ])
    expect(await commands[0]?.readBody()).toBe('Review $ARGUMENTS')
    expect(await commands[1]?.readBody()).toBe('# Make a component\n\nMake $1.')
  })

  describe('the body, read when the command runs', () => {
    it('is the file as it is then: an edited prompt is used as edited', async () => {
      const { commands } = await files({ 'review.md': '---\ndescription: Review\n---\nOld prompt\n' })
      await writeFile(join(dir, 'review.md'), '---\ndescription: Review\n---\nNew prompt\n')
      expect(await commands[0]?.readBody()).toBe('New prompt')
    })

    it('says so when the file is gone since the session started', async () => {
      const { commands } = await files({ 'review.md': 'Review it' })
      await rm(join(dir, 'review.md'))
      await expect(commands[0]?.readBody()).rejects.toThrow(
        'review.md: cannot be read: it is gone (it was read when the session started)',
      )
    })

    it('refuses another file in its place: a link to elsewhere, or changed allowed-tools or model', async () => {
      const { commands } = await files({
        'linked.md': 'Linked',
        'other.md': 'Other',
        'grants.md': '---\nallowed-tools: Read\n---\nGo',
      })
      const [grants, linked] = commands
      await rm(join(dir, 'linked.md'))
      await symlink(join(dir, 'other.md'), join(dir, 'linked.md'))
      await expect(linked?.readBody()).rejects.toThrow(
        /linked\.md now leads to .*other\.md, not the file read/,
      )
      await writeFile(join(dir, 'grants.md'), '---\nallowed-tools: Bash(rm *)\n---\nGo')
      await expect(grants?.readBody()).rejects.toThrow(
        'grants.md: its allowed-tools or model changed since the session started; restart the session to use them',
      )
    })

    it('is not kept: the definition holds the one-line fields only', async () => {
      const { commands } = await files({ 'hint.md': '---\nargument-hint: [file-to-review] [focus]\n---\nGo' })
      expect(commands[0]?.argumentHint).toBe('[file-to-review] [focus]')
      expect(Object.keys(commands[0] ?? {})).not.toContain('body')
    })
  })

  it.each([
    [
      'a bad allowed-tools rule',
      '---\nallowed-tools: Bash(git diff\n---\nx',
      'allowed-tools',
      'must end with ")"',
    ],
    [
      'a description that is a list',
      '---\ndescription: [a, b]\n---\nx',
      'description',
      'expected one line of text',
    ],
    ['unreadable YAML in a field it uses', '---\nmodel: {a: b}\n---\nx', 'model', 'expected a model id'],
    ['a frontmatter block that never closes', '---\ndescription: x\n', undefined, 'no closing "---"'],
    ['no prompt', '---\ndescription: x\n---\n\n', undefined, 'has no prompt'],
  ])('leaves out a file with %s, naming the file and the field', async (_name, text, field, message) => {
    const { commands, problems } = await files({ 'bad.md': text, 'good.md': 'fine' })
    expect(commands.map((c) => c.name)).toEqual(['good'])
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatchObject({ file: 'bad.md', skipped: true })
    expect(problems[0]?.field).toBe(field)
    expect(problems[0]?.message).toContain(message)
  })

  it('reports a file name that cannot be a command, and the second of two files with one name', async () => {
    const { commands, problems } = await files({
      'fix.issue.md': 'x',
      'test.md': 'top',
      'backend/test.md': 'nested',
    })
    expect(commands.map((c) => c.file)).toEqual(['test.md'])
    expect(problems.map((p) => `${p.file}: ${p.message}`)).toEqual([
      'fix.issue.md: "fix.issue" cannot be a command name: use letters, digits, "-" and "_", starting with a letter (rename the file)',
      'backend/test.md: /test is already defined by test.md; this one is left out (rename one of the files)',
    ])
  })

  it("loads a command with a Claude model tier but says the session's model is used", async () => {
    const { commands, problems } = await files({ 'quick.md': '---\nmodel: haiku\n---\nDo it' })
    expect(commands[0]?.model).toBeUndefined()
    expect(problems).toEqual([expect.objectContaining({ file: 'quick.md', field: 'model', skipped: false })])
  })

  it('a missing folder is no commands and no problem', async () => {
    expect(
      await loadCommandDir({ dir: join(dir, 'none'), scope: 'user', label: (p) => p, read: testReader() }),
    ).toEqual({
      commands: [],
      problems: [],
    })
  })

  it('reads command files through the read boundary: a link out of the workspace or a FIFO is left out', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'agent-tui-commands-outside-'))
    try {
      await writeFile(join(outside, 'secret.md'), 'SECRET prompt')
      await mkdir(join(dir, 'cmds'))
      await symlink(join(outside, 'secret.md'), join(dir, 'cmds', 'leak.md'))
      execFileSync('mkfifo', [join(dir, 'cmds', 'pipe.md')])
      await writeFile(join(dir, 'cmds', 'ok.md'), 'Fine')
      const loaded = await loadCommandDir({
        dir: join(dir, 'cmds'),
        scope: 'project',
        label: (p) => relative(dir, p),
        read: testReader(dir),
      })
      expect(loaded.commands.map((c) => c.name)).toEqual(['ok'])
      expect(loaded.problems).toEqual([
        expect.objectContaining({
          file: 'cmds/leak.md',
          message: expect.stringMatching(/^left out: reads outside the workspace need consent/),
          skipped: true,
        }),
      ])
      expect(JSON.stringify(loaded)).not.toContain('SECRET')
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })
})
