import { describe, expect, it } from 'vitest'
import { Slots } from '../../../../source/agent/subagents/slots.js'

describe('Slots', () => {
  it('lets `size` holders in and the rest wait in arrival order', async () => {
    const slots = new Slots(2)
    const signal = new AbortController().signal
    const waits: string[] = []
    const a = await slots.acquire(signal, () => waits.push('a'))
    const b = await slots.acquire(signal, () => waits.push('b'))
    const order: string[] = []
    const note = (name: string) => (release: (() => void) | null) => {
      order.push(name)
      return release
    }
    const c = slots.acquire(signal, () => waits.push('c')).then(note('c'))
    const d = slots.acquire(signal, () => waits.push('d')).then(note('d'))
    expect(waits).toEqual(['c', 'd'])
    expect(slots.busy).toBe(2)
    a?.()
    a?.() // a second release changes nothing
    const releaseC = await c
    expect(order).toEqual(['c'])
    b?.()
    const releaseD = await d
    expect(order).toEqual(['c', 'd'])
    releaseC?.()
    releaseD?.()
    expect(slots.busy).toBe(0)
  })

  it('gives up waiting when the signal aborts, holding nothing', async () => {
    const slots = new Slots(1)
    const release = await slots.acquire(new AbortController().signal, () => undefined)
    const controller = new AbortController()
    const waiting = slots.acquire(controller.signal, () => undefined)
    controller.abort()
    expect(await waiting).toBeNull()
    release?.()
    expect(slots.busy).toBe(0)
    expect(await slots.acquire(controller.signal, () => undefined)).toBeNull()
  })
})
