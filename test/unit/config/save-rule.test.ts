import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../source/config/errors.js'
import { appendAllowRule } from '../../../source/config/save-rule.js'

let dir: string
let file: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-save-rule-'))
  file = join(dir, '.agent-tui', 'settings.local.json')
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const read = async () => JSON.parse(await readFile(file, 'utf8'))

describe('appendAllowRule', () => {
  it('creates the file and its directory', async () => {
    expect(await appendAllowRule(file, 'Bash(npm test *)')).toBe(true)
    expect(await read()).toEqual({ permissions: { allow: ['Bash(npm test *)'] } })
  })

  it('keeps other keys and appends without duplicates', async () => {
    await appendAllowRule(file, 'Read')
    await writeFile(
      file,
      JSON.stringify({ model: 'm', permissions: { allow: ['Read'], deny: ['Bash(rm *)'] } }),
    )
    expect(await appendAllowRule(file, 'Edit(source/**)')).toBe(true)
    expect(await appendAllowRule(file, 'Edit(source/**)')).toBe(false)
    expect(await read()).toEqual({
      model: 'm',
      permissions: { allow: ['Read', 'Edit(source/**)'], deny: ['Bash(rm *)'] },
    })
    expect((await readdir(join(dir, '.agent-tui'))).sort()).toEqual(['settings.local.json'])
  })

  it('stores the canonical rule text', async () => {
    await appendAllowRule(file, ' Bash(  git   status * ) ')
    expect(await read()).toEqual({ permissions: { allow: ['Bash(git status *)'] } })
  })

  it.each<[string, string]>([
    ['{ "permissions": ', 'is not valid JSON'],
    ['[1, 2]', 'must contain a JSON object'],
    ['{"permissions": []}', 'permissions must be an object'],
    ['{"permissions": {"allow": "Read"}}', 'permissions.allow must be a list'],
  ])('refuses to overwrite %j', async (content, message) => {
    await appendAllowRule(file, 'Read')
    await writeFile(file, content)
    await expect(appendAllowRule(file, 'Bash')).rejects.toThrow(ConfigError)
    await expect(appendAllowRule(file, 'Bash')).rejects.toThrow(message)
    expect(await readFile(file, 'utf8')).toBe(content)
  })

  it('rejects a malformed rule', async () => {
    await expect(appendAllowRule(file, 'Bash(')).rejects.toThrow('must end with ")"')
  })
})

describe('saving where a repository or a sandboxed command put a link', () => {
  const setUp = async () => {
    const { mkdir, symlink } = await import('node:fs/promises')
    await mkdir(join(dir, 'home'))
    const bashrc = join(dir, 'home', '.bashrc')
    await writeFile(bashrc, '{"permissions":{"allow":["Bash"]}}\n')
    return { mkdir, symlink, bashrc }
  }

  it('settings.local.json that is a link: refused with the reason, its target untouched', async () => {
    const { mkdir, symlink, bashrc } = await setUp()
    await mkdir(join(dir, '.agent-tui'))
    await symlink(bashrc, file)
    await expect(appendAllowRule(file, 'Read')).rejects.toThrow(/settings\.local\.json is a symbolic link/)
    expect(await readFile(bashrc, 'utf8')).toBe('{"permissions":{"allow":["Bash"]}}\n')
  })

  it('.agent-tui that is a link: refused, nothing created where it leads', async () => {
    const { symlink } = await setUp()
    await symlink(join(dir, 'home'), join(dir, '.agent-tui'))
    await expect(appendAllowRule(file, 'Read')).rejects.toThrow(/\.agent-tui is a symbolic link/)
    expect(await readdir(join(dir, 'home'))).toEqual(['.bashrc'])
  })

  it('.gitignore that is a link: not read, not written through; the rule is still saved', async () => {
    const { symlink, bashrc } = await setUp()
    const { execFileSync } = await import('node:child_process')
    execFileSync('git', ['init', '-q'], { cwd: dir })
    await symlink(bashrc, join(dir, '.gitignore'))
    const { saveAlwaysRule } = await import('../../../source/config/ignore-local-settings.js')
    const notice = await saveAlwaysRule(file, dir, 'Read')
    expect(notice?.level).toBe('warn')
    expect(notice?.text).toMatch(/could not add .* to \.gitignore \(.*\.gitignore is a (symbolic )?link/)
    expect(await read()).toEqual({ permissions: { allow: ['Read'] } })
    expect(await readFile(bashrc, 'utf8')).toBe('{"permissions":{"allow":["Bash"]}}\n')
  })
})
