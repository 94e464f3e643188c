import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDebugLog } from '../../../source/app/debug-log.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-debug-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe('the --debug log', () => {
  it('is a new private file in the state dir’s debug folder', async () => {
    const log = openDebugLog(join(dir, 'state', 'debug'), '42')
    log.write({ type: 'notice/added', id: 'n', level: 'info', text: 'hi' })
    log.close()
    expect(log.path).toMatch(/\/state\/debug\/.*-42\.jsonl$/)
    expect(await readFile(log.path, 'utf8')).toContain('"text":"hi"')
  })

  it('never writes into a folder that a link took elsewhere', async () => {
    await mkdir(join(dir, 'home'))
    await writeFile(join(dir, 'home', '.bashrc'), 'ok\n')
    await mkdir(join(dir, 'state'))
    await symlink(join(dir, 'home'), join(dir, 'state', 'debug'))
    expect(() => openDebugLog(join(dir, 'state', 'debug'), '42')).toThrow(/debug is a symbolic link/)
    expect(await readdir(join(dir, 'home'))).toEqual(['.bashrc'])
  })
})
