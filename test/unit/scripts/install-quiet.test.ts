import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { setupNote } from '../../../scripts/setup-note.mjs'
import { repoRoot } from '../../support/run-cli.ts'

describe('npm install on a Node older than the project wants', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  /** `npm install` of a package whose engines no Node meets (as agent-tui's >= 22 for npm on Node 20). */
  function install(withProjectNpmrc: boolean): string {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tui-npmrc-'))
    dirs.push(dir)
    writeFileSync(join(dir, 'package.json'), '{"name":"x","version":"1.0.0","engines":{"node":">=99"}}')
    if (withProjectNpmrc) copyFileSync(join(repoRoot, '.npmrc'), join(dir, '.npmrc'))
    const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--offline'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, npm_config_cache: join(dir, '.npm') },
    })
    expect(r.status).toBe(0)
    return `${r.stdout}${r.stderr}`
  }

  it("prints no EBADENGINE warnings with the project's .npmrc (npm alone prints them)", () => {
    expect(install(false)).toContain('EBADENGINE')
    expect(install(true)).not.toContain('EBADENGINE')
  })

  it.each<[string, string | undefined, string, RegExp | null]>([
    [
      'npm on Node 20, scripts on the pinned 24',
      'npm/11.19.1 node/v20.20.2 linux x64',
      'v24.21.0',
      /Node 20\.20\.2.*\n.*pinned Node 24\.21\.0/,
    ],
    [
      'the pinned Node missing',
      'npm/11.19.1 node/v20.20.2 linux x64',
      'v20.20.2',
      /pins is missing.*without it/,
    ],
    ['npm on Node 22: nothing to say', 'npm/10.9.0 node/v22.3.0 linux x64', 'v22.3.0', null],
    ['not run by npm', undefined, 'v24.21.0', null],
  ])('the note after the install: %s', (_name, agent, node, expected) => {
    const note = setupNote(agent, node)
    if (expected === null) expect(note).toBeNull()
    else expect(note).toMatch(expected)
  })
})
