import { describe, expect, it } from 'vitest'
import { BWRAP_PATHS, locateSandboxTool, unavailableNotice } from '../../../source/sandbox/locate.js'
import { osSandbox, sandboxRequired } from '../../support/os-sandbox.ts'

describe('locateSandboxTool', () => {
  it('uses AGENT_TUI_BWRAP alone when set: a path that does not exist is "not installed"', () => {
    const tool = locateSandboxTool('linux', { AGENT_TUI_BWRAP: '/nonexistent/bwrap' })
    expect(tool).toEqual({
      kind: 'missing',
      why: 'not-installed',
      detail: '/nonexistent/bwrap (AGENT_TUI_BWRAP) is not an executable file',
    })
  })

  it('refuses a relative AGENT_TUI_BWRAP (it would be looked up where commands can write)', () => {
    expect(locateSandboxTool('linux', { AGENT_TUI_BWRAP: 'bwrap' })).toMatchObject({
      kind: 'missing',
      why: 'bad-override',
    })
  })

  it('accepts any executable file as AGENT_TUI_BWRAP (its trial run decides whether it works)', () => {
    expect(locateSandboxTool('linux', { AGENT_TUI_BWRAP: '/bin/sh' })).toEqual({
      kind: 'bwrap',
      path: '/bin/sh',
    })
  })

  it('never looks in PATH: only the fixed install locations', () => {
    const tool = locateSandboxTool('linux', { PATH: '/definitely/not/here' })
    if (tool.kind === 'bwrap') expect(BWRAP_PATHS).toContain(tool.path)
    else expect(tool).toMatchObject({ kind: 'missing', detail: `looked for ${BWRAP_PATHS.join(', ')}` })
  })

  it('has no sandbox on other systems', () => {
    expect(locateSandboxTool('win32', {})).toMatchObject({ kind: 'missing', why: 'unsupported' })
  })

  it('uses only /usr/bin/sandbox-exec on macOS', () => {
    const tool = locateSandboxTool('darwin', {})
    expect(tool.kind === 'seatbelt' ? tool.path : tool.kind === 'missing' ? tool.detail : '').toContain(
      '/usr/bin/sandbox-exec',
    )
  })

  it('this machine has a sandbox program where the test run requires one (CI)', () => {
    // On a developer machine without one the real-sandbox tests are left out; CI must run them.
    if (sandboxRequired) expect(osSandbox).toBeDefined()
  })
})

describe('unavailableNotice', () => {
  it('says how to install bubblewrap on the common distributions, and that commands will ask', () => {
    const text = unavailableNotice(locateSandboxTool('linux', { AGENT_TUI_BWRAP: '/nonexistent/bwrap' }))
    expect(text).toContain('bubblewrap (bwrap) is not installed')
    for (const install of [
      'sudo apt-get install bubblewrap',
      'sudo dnf install bubblewrap',
      'sudo pacman -S bubblewrap',
    ])
      expect(text).toContain(install)
    expect(text).toContain('every Bash command asks before it runs, unsandboxed')
  })

  it('names what failed when bubblewrap is there but cannot start a sandbox', () => {
    const text = unavailableNotice({
      kind: 'failed',
      program: '/usr/bin/bwrap',
      detail: 'bwrap: No permissions to creating new namespace',
    })
    expect(text).toContain('/usr/bin/bwrap could not start a sandbox (bwrap: No permissions')
    expect(text).toContain('kernel.unprivileged_userns_clone=1')
    expect(text).not.toContain('apt-get')
  })
})
