import { describe, expect, it } from 'vitest'
import { resolvePaths } from '../../../source/config/app-paths.js'
import { tildePath } from '../../../source/config/project-trust.js'
import { noEndpointMessage } from '../../../source/app/run-config.js'

describe('the headless "no endpoint" message', () => {
  const probed = [{ name: 'Ollama', url: 'http://127.0.0.1:11434/v1/models', result: 'connection refused' }]

  it('names the user settings file under XDG_CONFIG_HOME, not ~/.config', () => {
    const paths = resolvePaths({ HOME: '/home/u', XDG_CONFIG_HOME: '/srv/xdg' })
    const text = noEndpointMessage(probed, tildePath(paths.userSettingsFile, '/home/u'))
    expect(text).toContain('"baseUrl" and "model" in /srv/xdg/agent-tui/settings.json')
    expect(text).not.toContain('~/.config')
    expect(text).toContain('connection refused')
  })

  it('shortens the default location to ~/.config/agent-tui/settings.json', () => {
    const paths = resolvePaths({ HOME: '/home/u' })
    expect(noEndpointMessage(probed, tildePath(paths.userSettingsFile, '/home/u'))).toContain(
      '"baseUrl" and "model" in ~/.config/agent-tui/settings.json',
    )
  })
})
