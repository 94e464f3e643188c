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
