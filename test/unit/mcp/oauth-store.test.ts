import { execFileSync } from 'node:child_process'
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createOAuthStore } from '../../../source/mcp/oauth-store.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-tui-oauth-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const tokens = { tokens: { access_token: 'secret-token', token_type: 'bearer' } }

describe('the OAuth store', () => {
  it('keeps tokens at exactly 0600, also over a file that was readable by others', async () => {
    const file = join(dir, 'mcp-oauth.json')
    await writeFile(file, '{"version":1,"servers":{}}')
    await chmod(file, 0o644)
    await createOAuthStore(file).update('https://x.example/mcp', () => tokens)
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it('never writes tokens through a link at its name, nor chmods the link’s target', async () => {
    const elsewhere = join(dir, 'public.txt')
    await writeFile(elsewhere, 'public\n')
    await chmod(elsewhere, 0o644)
    const file = join(dir, 'mcp-oauth.json')
    await symlink(elsewhere, file)
    const store = createOAuthStore(file)
    await store.update('https://x.example/mcp', () => tokens)
    expect(await readFile(elsewhere, 'utf8')).toBe('public\n')
    expect((await stat(elsewhere)).mode & 0o777).toBe(0o644)
    expect((await lstat(file)).isFile()).toBe(true)
    expect((await store.get('https://x.example/mcp'))?.tokens).toEqual(tokens.tokens)
  })

  it('a FIFO at its name does not stall a read', async () => {
    const file = join(dir, 'mcp-oauth.json')
    await mkdir(dir, { recursive: true })
    execFileSync('mkfifo', [file])
    expect(await createOAuthStore(file).get('https://x.example/mcp')).toBeUndefined()
  })
})
