import { Profiler } from 'react'
import { describe, expect, it } from 'vitest'
import { InputPane } from '../../../source/ui/panes/input/input-pane.js'
import { fakeCommands, KEYS, makeStore, renderPane, waitFor } from '../shell/helpers.js'

describe('the prompt binding', () => {
  it('renders the prompt once per key, whatever the key does', async () => {
    const store = makeStore()
    const commits: string[] = []
    const r = renderPane(
      <Profiler id="prompt" onRender={() => commits.push('commit')}>
        <InputPane width={80} maxHeight={12} active={true} flash={null} />
      </Profiler>,
      { store, commands: fakeCommands({ store }) },
    )
    await waitFor(() => r.frame().includes('Message'), r.frame)
    commits.length = 0
    const steps: Array<[string, string]> = [
      ...Array.from('helloworld', (ch, i): [string, string] => [ch, `❯ ${'helloworld'.slice(0, i + 1)}`]),
      [KEYS.left, '❯ helloworld'],
      [KEYS.backspace, '❯ helloword'],
      [KEYS.ctrl('a'), '❯ helloword'],
      [KEYS.ctrl('k'), '❯  Message'],
      ['/co', '/compact'],
      [KEYS.down, '/context'],
    ]
    for (const [key, shown] of steps) {
      const before = commits.length
      r.stdin.write(key)
      await waitFor(() => commits.length > before && r.frame().includes(shown), r.frame)
      expect(commits.length - before).toBe(1)
    }
    expect(commits).toHaveLength(steps.length)
    r.unmount()
  })
})

describe('the rule above the prompt while the agent works', () => {
  it('says Enter queues a message only while the prompt has the keys (not under a consent or question)', async () => {
    const store = makeStore([{ type: 'turn/started', turnId: 't1', at: 0 }])
    const typing = renderPane(<InputPane width={80} maxHeight={12} active={true} flash={null} />, {
      store,
      commands: fakeCommands({ store }),
    })
    await waitFor(() => typing.frame().includes('Enter queues your message · Esc interrupts'), typing.frame)
    typing.unmount()
    const dialog = renderPane(<InputPane width={80} maxHeight={12} active={false} flash={null} />, {
      store,
      commands: fakeCommands({ store }),
    })
    await waitFor(() => dialog.frame().includes('Message'), dialog.frame)
    expect(dialog.frame()).not.toContain('Enter queues')
    dialog.unmount()
  })
})
